// The API reference (docs/api-reference.md) as an HTML page: a <main> of sections, one per h2 (its h3s as
// subsections) so the search box can filter them, a table of contents from the h2 and h3 headings, an id
// and a visible "#" link on every heading (GitHub-style slugs: stable, and unique with -1, -2 …), and every
// table and code block in its own horizontally scrollable box that keyboard users can reach (tabindex 0,
// named), so the page itself never scrolls sideways on a phone.
import type { Marked, Token, Tokens, TokensList } from 'marked';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text of an HTML fragment: tags dropped, entities decoded. */
export function htmlText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e: string) =>
      e[0] === '#'
        ? String.fromCodePoint(parseInt(e.slice(1).replace(/^x/i, '0x'), e[1] === 'x' || e[1] === 'X' ? 16 : 10))
        : (ENTITIES[e] ?? m),
    );
}

/** GitHub's slug of a heading's text (as github-slugger makes it), unique within `seen`. */
export function slugify(text: string, seen: Map<string, number>): string {
  let base = text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
  if (!base) base = 'section';
  let slug = base;
  while (seen.has(slug)) {
    const n = seen.get(base)! + 1;
    seen.set(base, n);
    slug = `${base}-${n}`;
  }
  seen.set(slug, 0);
  return slug;
}

/** A heading with its id and its "#" link (named for screen readers after the heading). */
export function headingHtml(depth: number, id: string, inner: string, text: string): string {
  return `<h${depth} id="${id}">${inner}<a class="anchor" href="#${id}"><span aria-hidden="true">#</span><span class="visually-hidden">Link to “${escapeHtml(text)}”</span></a></h${depth}>`;
}

/** A box that scrolls its (wide) content sideways by itself, reachable and named for keyboard users. */
export function scrollBox(label: string, inner: string): string {
  return `<div class="scroll" tabindex="0" role="region" aria-label="${escapeHtml(label)}">${inner}</div>`;
}

export interface TocEntry {
  id: string;
  html: string;
  children: TocEntry[];
}

export interface RenderedReference {
  title: string;
  /** The h1 and what precedes the first h2. */
  intro: string;
  /** One <section class="doc-section"> per h2. */
  sections: string;
  toc: TocEntry[];
}

interface HeadingToken extends Tokens.Heading {
  slug?: string;
  plain?: string;
}

/** Renders the reference's markdown with a `Marked` instance (gfm); `reserved` ids are the page's own. */
export function renderReference(marked: Marked, markdown: string, reserved: string[] = []): RenderedReference {
  const tokens = marked.lexer(markdown);
  const seen = new Map<string, number>(reserved.map((id) => [id, 0]));
  const toc: TocEntry[] = [];
  const inline = (t: Token[]) => marked.Parser.parseInline(t, marked.defaults);
  let title = 'API reference';
  // Names of the scroll boxes, unique per page: "Code example 2 in “Refunds”".
  let section = '';
  const counts = new Map<string, number>();
  const boxName = (kind: string) => {
    const key = `${kind}|${section}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    return section ? `${kind} ${n} in “${section}”` : `${kind} ${n}`;
  };

  marked.use({
    renderer: {
      heading(token: HeadingToken) {
        return headingHtml(token.depth, token.slug ?? '', this.parser.parseInline(token.tokens), token.plain ?? token.text);
      },
      table(token) {
        const header = token.header.map((c) => htmlText(inline(c.tokens))).join(', ');
        return scrollBox(`${boxName('Table')}: ${header}`, marked.Renderer.prototype.table.call(this, token));
      },
      code(token) {
        const lang = token.lang ? ` class="language-${escapeHtml(token.lang)}"` : '';
        return scrollBox(boxName('Code example'), `<pre><code${lang}>${escapeHtml(token.text)}</code></pre>`) + '\n';
      },
    },
  });

  // Slugs and the contents, in document order.
  for (const token of tokens) {
    if (token.type !== 'heading') continue;
    const h = token as HeadingToken;
    const inner = inline(h.tokens);
    h.plain = htmlText(inner).trim();
    h.slug = slugify(h.plain, seen);
    if (h.depth === 1 && title === 'API reference') title = h.plain;
    if (h.depth === 2) toc.push({ id: h.slug, html: inner, children: [] });
    else if (h.depth === 3) {
      const parent = toc[toc.length - 1];
      (parent ? parent.children : toc).push({ id: h.slug, html: inner, children: [] });
    }
  }

  // Sections: each h2 opens one, each h3 a subsection inside it.
  const parse = (group: Token[]) => marked.parser(Object.assign(group, { links: (tokens as TokensList).links }));
  let intro = '';
  let out = '';
  let group: Token[] = [];
  let inSection = false;
  let inSubsection = false;
  const flush = () => {
    const html = group.length ? parse(group) : '';
    group = [];
    if (inSection) out += html;
    else intro += html;
  };
  for (const token of tokens) {
    if (token.type === 'heading' && (token.depth === 2 || token.depth === 3)) {
      const h = token as HeadingToken;
      flush();
      if (inSubsection) out += '</section>';
      inSubsection = false;
      if (h.depth === 2 || !inSection) {
        if (inSection) out += '</section>';
        out += `<section class="doc-section" data-heading="${h.slug}">`;
        inSection = true;
        section = h.plain ?? '';
      } else {
        out += `<section class="doc-subsection" data-heading="${h.slug}">`;
        inSubsection = true;
      }
    }
    group.push(token);
  }
  flush();
  if (inSubsection) out += '</section>';
  if (inSection) out += '</section>';
  return { title, intro, sections: out, toc };
}

/** The table of contents as nested lists. */
export function tocHtml(entries: TocEntry[]): string {
  if (!entries.length) return '';
  const items = entries.map((e) => `<li data-toc="${e.id}"><a href="#${e.id}">${e.html}</a>${tocHtml(e.children)}</li>`).join('');
  return `<ol>${items}</ol>`;
}
