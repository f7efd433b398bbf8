// The /docs page's search box and contents: typing filters the sections (a section whose heading matches
// shows whole; otherwise each subsection shows only if it matches), the contents follow, and a live
// region says how many sections match. Without this script the page is whole and the box stays hidden.
(function () {
  'use strict';
  var form = document.getElementById('docs-search');
  var input = document.getElementById('docs-search-input');
  var status = document.getElementById('docs-search-status');
  if (!form || !input || !status) return;

  var tocItem = function (id) {
    return document.querySelector('nav.toc li[data-toc="' + id + '"]');
  };
  var norm = function (s) {
    return s.toLowerCase().replace(/\s+/g, ' ');
  };
  var ownText = function (el, skip) {
    var text = '';
    for (var n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1 && n.classList.contains(skip)) continue;
      text += ' ' + n.textContent;
    }
    return norm(text);
  };

  var sections = Array.prototype.map.call(document.querySelectorAll('main .doc-section'), function (el) {
    var heading = el.querySelector('h2, h3');
    return {
      el: el,
      toc: tocItem(el.getAttribute('data-heading')),
      heading: norm(heading ? heading.textContent : ''),
      text: ownText(el, 'doc-subsection'),
      subs: Array.prototype.map.call(el.querySelectorAll(':scope > .doc-subsection'), function (sub) {
        return { el: sub, toc: tocItem(sub.getAttribute('data-heading')), text: norm(sub.textContent) };
      }),
    };
  });

  var show = function (item, visible) {
    item.el.hidden = !visible;
    if (item.toc) item.toc.hidden = !visible;
  };

  var apply = function () {
    var terms = norm(input.value).trim().split(' ').filter(Boolean);
    var has = function (text) {
      return terms.every(function (t) {
        return text.indexOf(t) !== -1;
      });
    };
    var shown = 0;
    sections.forEach(function (s) {
      var whole = terms.length === 0 || has(s.heading);
      var any = whole || has(s.text);
      s.subs.forEach(function (sub) {
        var visible = whole || has(sub.text);
        show(sub, visible);
        any = any || visible;
      });
      show(s, any);
      if (any) shown++;
    });
    status.textContent =
      terms.length === 0 ? '' : shown === 0 ? 'No section matches.' : shown === 1 ? '1 section matches.' : shown + ' sections match.';
  };

  form.hidden = false;
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    apply();
  });
  input.addEventListener('input', apply);
  input.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && input.value) {
      input.value = '';
      apply();
    }
  });
  if (input.value) apply();

  // On a narrow screen the contents start folded, so the reference itself is on the first screen.
  var contents = document.querySelector('nav.toc details');
  if (contents && window.matchMedia('(max-width: 60rem)').matches) contents.open = false;
})();
