// /docs/api: hands the OpenAPI document named by the container's data-spec to Redoc (loaded just before
// this file, from this server) with its search box on. Fonts are the system's, since the page fetches none;
// if Redoc is missing or cannot read the document, the container says so and links to the JSON.
(function () {
  'use strict';
  var el = document.getElementById('redoc');
  if (!el) return;
  var spec = el.getAttribute('data-spec');

  var fail = function () {
    el.setAttribute('data-state', 'failed');
    el.textContent = '';
    var p = document.createElement('p');
    p.className = 'api-status';
    p.setAttribute('role', 'alert');
    p.appendChild(document.createTextNode('The reference could not be shown. The same operations are in '));
    var a = document.createElement('a');
    a.href = spec;
    a.textContent = 'the OpenAPI document';
    p.appendChild(a);
    p.appendChild(document.createTextNode('.'));
    el.appendChild(p);
  };
  if (!window.Redoc) {
    fail();
    return;
  }

  var system = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  window.Redoc.init(
    spec,
    {
      disableSearch: false,
      nativeScrollbars: true,
      expandResponses: '200,201',
      jsonSampleExpandLevel: 2,
      theme: {
        typography: {
          fontFamily: system,
          headings: { fontFamily: system },
          code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
        },
      },
    },
    el,
    function (error) {
      if (error) fail();
      else el.setAttribute('data-state', 'ready');
    },
  );
})();
