// A list call is awaited for its first page, or iterated with `for await` for every item of every page:
// the next page is asked for with the last item's id as the cursor while `has_more` is true.

export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more?: boolean;
}

export class PagedList<P extends ListPage<unknown>> implements PromiseLike<P>, AsyncIterable<P['data'][number]> {
  private first: Promise<P> | null = null;

  /**
   * @param fetchPage asks for the page after `cursor` (the first page when null)
   * @param cursorOf the cursor that follows a page, or null when it is the last
   */
  constructor(
    private readonly fetchPage: (cursor: string | null) => Promise<P>,
    private readonly cursorOf: (page: P) => string | null = lastIdWhileMore,
  ) {}

  private firstPage(): Promise<P> {
    return (this.first ??= this.fetchPage(null));
  }

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ) {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null) {
    return this.firstPage().catch(onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<P['data'][number]> {
    let page = await this.firstPage();
    for (;;) {
      for (const item of page.data) yield item;
      const cursor = this.cursorOf(page);
      if (cursor === null) return;
      page = await this.fetchPage(cursor);
    }
  }

  /** Every item of every page, in order; `max` stops early. */
  async toArray(options: { max?: number } = {}): Promise<Array<P['data'][number]>> {
    const out: Array<P['data'][number]> = [];
    for await (const item of this) {
      if (options.max !== undefined && out.length >= options.max) break;
      out.push(item);
    }
    return out;
  }
}

function lastIdWhileMore(page: ListPage<unknown>): string | null {
  if (!page.has_more || page.data.length === 0) return null;
  const last = page.data[page.data.length - 1] as { id?: unknown };
  return typeof last?.id === 'string' ? last.id : null;
}
