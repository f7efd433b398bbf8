// Cowrie hosted checkout: method choice, pay actions, live status by polling, countdown, copy buttons.
// Served from our own origin; no framework, no inline code (the page's CSP forbids it).
(function () {
  'use strict';
  var tokenMeta = document.querySelector('meta[name="checkout-token"]');
  var token = tokenMeta ? tokenMeta.getAttribute('content') : '';
  var FINAL = { paid: 1, failed: 1, expired: 1, cancelled: 1, refunded: 1 };

  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-checkout-token': token },
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.json().then(
        function (json) {
          return { ok: res.ok, status: res.status, json: json };
        },
        function () {
          return { ok: false, status: res.status, json: {} };
        },
      );
    });
  }

  function text(id, value) {
    var el = document.getElementById(id);
    if (el) el.textContent = value;
    return el;
  }

  function clearErrors(form) {
    form.querySelectorAll('[aria-invalid]').forEach(function (el) {
      el.removeAttribute('aria-invalid');
    });
    form.querySelectorAll('.field-error,.form-error').forEach(function (el) {
      el.textContent = '';
    });
  }

  function showError(form, formErrorId, json) {
    var err = (json && json.error) || {};
    var message = err.message || 'Something went wrong. Please try again.';
    var field = err.param ? form.querySelector('[name="' + err.param + '"]') : null;
    if (field) {
      field.setAttribute('aria-invalid', 'true');
      text(field.id + '-error', message);
      field.focus();
    } else {
      text(formErrorId, message);
    }
  }

  function paypalPage() {
    var main = document.getElementById('main');
    var approveUrl = main.getAttribute('data-approve-url');
    var backUrl = main.getAttribute('data-back-url');
    function answer(approve, button) {
      button.disabled = true;
      post(approveUrl, { approve: approve }).then(
        function (r) {
          if (r.ok) window.location.assign(r.json.redirect || backUrl);
          else {
            button.disabled = false;
            text('err-paypal', (r.json.error && r.json.error.message) || 'Something went wrong.');
          }
        },
        function () {
          button.disabled = false;
          text('err-paypal', 'Network problem. Please try again.');
        },
      );
    }
    document.getElementById('paypal-approve').addEventListener('click', function (e) {
      answer(true, e.currentTarget);
    });
    document.getElementById('paypal-cancel').addEventListener('click', function (e) {
      answer(false, e.currentTarget);
    });
  }

  function checkoutPage() {
    var main = document.getElementById('main');
    if (!main || !main.getAttribute('data-intent')) return;
    var statusUrl = main.getAttribute('data-status-url');
    var payUrl = main.getAttribute('data-pay-url');
    var depositUrl = main.getAttribute('data-deposit-url');
    var returnUrl = main.getAttribute('data-return-url');
    var methods = document.getElementById('methods');
    var countdown = document.getElementById('countdown');
    var deadline = countdown ? Date.now() + Number(countdown.getAttribute('data-seconds-left')) * 1000 : 0;
    var lastStatus = main.getAttribute('data-status');
    var finished = false;

    function showPanel(method) {
      document.querySelectorAll('.method-form').forEach(function (p) {
        p.hidden = p.id !== 'panel-' + method;
      });
    }
    var radios = document.querySelectorAll('input[name="method"]');
    // No method is chosen for the customer: every panel waits for a choice.
    showPanel(null);
    radios.forEach(function (r) {
      r.addEventListener('change', function () {
        if (r.checked) showPanel(r.value);
      });
      if (r.checked) showPanel(r.value);
    });

    function tick() {
      if (!countdown || finished) return;
      var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      countdown.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
    }
    setInterval(tick, 1000);
    tick();

    // After the customer acts, the outcome takes the focus (so a screen reader and the keyboard are there).
    var focusResult = false;
    function moveFocusToResult() {
      var headline = document.getElementById('status-headline');
      if (headline) headline.focus();
      focusResult = false;
    }

    function applyStatus(s) {
      var box = document.getElementById('status');
      box.className = 'status status-' + s.status;
      text('status-headline', s.headline);
      text('status-detail', s.detail);
      if (countdown) deadline = Date.now() + s.seconds_left * 1000;
      lastStatus = s.status;
      // Nothing in progress (an attempt failed, say): every method can be tried again.
      if (!s.attempt || s.attempt.state !== 'pending') {
        document.querySelectorAll('form[data-method] button[type="submit"]').forEach(function (b) {
          b.disabled = false;
        });
      }
      if (s.final) finish(s);
      if (focusResult && (s.final || !s.attempt || s.attempt.state !== 'pending')) moveFocusToResult();
    }

    function finish(s) {
      if (finished) return;
      finished = true;
      if (methods) methods.hidden = true;
      var cd = document.querySelector('.countdown');
      if (cd) cd.hidden = true;
      var target = s.return_url || returnUrl;
      if (target) {
        document.getElementById('return-link').hidden = false;
        text('status-detail', s.detail + ' Taking you back to the merchant in 5 seconds.');
        setTimeout(function () {
          window.location.assign(target);
        }, 5000);
      }
    }

    function poll() {
      fetch(statusUrl, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (res) {
          return res.ok ? res.json() : null;
        })
        .then(
          function (s) {
            if (s) applyStatus(s);
            if (!finished) setTimeout(poll, 1500);
          },
          function () {
            if (!finished) setTimeout(poll, 3000);
          },
        );
    }
    if (FINAL[lastStatus])
      finish({ status: lastStatus, detail: document.getElementById('status-detail').textContent, return_url: returnUrl });
    else setTimeout(poll, 1500);

    function showWallet(next) {
      var box = document.getElementById('wallet-instructions');
      box.querySelector('.w-asset').textContent = next.asset;
      box.querySelector('.w-network').textContent = next.network_name;
      text('w-amount', next.amount);
      text(
        'w-tag',
        'That is the ' +
          next.amount_due +
          ' ' +
          next.asset +
          ' due plus a tag of ' +
          next.tag +
          ' ' +
          next.asset +
          ' that marks this payment as yours, so we can match it.',
      );
      text('w-address', next.address);
      document.getElementById('w-qr').setAttribute('src', next.qr);
      box.hidden = false;
      var dep = document.getElementById('deposit-form');
      if (dep) {
        dep.hidden = false;
        dep.querySelector('[name="amount"]').value = next.amount;
        dep.querySelector('[name="network"]').value = next.network;
        dep.querySelector('[name="asset"]').value = next.asset;
      }
      document.getElementById('w-amount').parentNode.querySelector('button').focus();
    }

    // The card number is grouped as it is typed (4-6-5 for American Express, else fours).
    var cardNumber = document.querySelector('[data-group="card"]');
    if (cardNumber) {
      cardNumber.addEventListener('input', function () {
        var atEnd = cardNumber.selectionStart === cardNumber.value.length;
        var digits = cardNumber.value.replace(/\D/g, '').slice(0, 19);
        var groups = /^3[47]/.test(digits) ? [4, 6, 5] : [4, 4, 4, 4, 3];
        var out = [];
        var i = 0;
        groups.forEach(function (n) {
          if (i < digits.length) out.push(digits.slice(i, i + n));
          i += n;
        });
        var grouped = out.join(' ');
        if (grouped !== cardNumber.value) {
          cardNumber.value = grouped;
          if (atEnd) cardNumber.setSelectionRange(grouped.length, grouped.length);
        }
      });
    }

    // Checks every card field before sending, so that each mistake is shown at once beside its field.
    function luhn(digits) {
      var sum = 0;
      for (var i = 0; i < digits.length; i++) {
        var d = Number(digits[digits.length - 1 - i]);
        if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
        sum += d;
      }
      return sum % 10 === 0;
    }
    function cardProblems(form) {
      var problems = [];
      var number = form.querySelector('[name="card_number"]').value.replace(/[\s-]/g, '');
      if (!/^\d{12,19}$/.test(number) || !luhn(number))
        problems.push(['card_number', 'Check the card number: it is not a valid card number.']);
      var expiry = form.querySelector('[name="card_expiry"]').value.trim();
      var m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(expiry);
      var month = m ? Number(m[1]) : 0;
      if (!m || month < 1 || month > 12) problems.push(['card_expiry', 'Enter the expiry date as MM/YY, for example 08/29.']);
      else {
        var year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
        var now = new Date();
        if (year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1))
          problems.push(['card_expiry', 'This card has expired. Use another card.']);
      }
      var cvc = form.querySelector('[name="card_cvc"]').value.trim();
      var want = /^3[47]/.test(number) ? 4 : 3;
      if (!new RegExp('^\\d{' + want + '}$').test(cvc))
        problems.push(['card_cvc', 'Enter the ' + want + '-digit security code from the card.']);
      return problems;
    }
    function showProblems(form, method, problems) {
      problems.forEach(function (p) {
        var field = form.querySelector('[name="' + p[0] + '"]');
        field.setAttribute('aria-invalid', 'true');
        text(field.id + '-error', p[1]);
      });
      text('err-' + method, problems.length === 1 ? 'Fix the field marked below.' : 'Fix the ' + problems.length + ' fields marked below.');
      form.querySelector('[aria-invalid="true"]').focus();
    }

    document.querySelectorAll('form[data-method]').forEach(function (form) {
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var method = form.getAttribute('data-method');
        var body = { method: method };
        new FormData(form).forEach(function (v, k) {
          body[k] = String(v);
        });
        clearErrors(form);
        if (method === 'card' && form.querySelector('[name="card_number"]')) {
          var problems = cardProblems(form);
          if (problems.length) {
            showProblems(form, method, problems);
            return;
          }
        }
        focusResult = method !== 'external_wallet' && method !== 'paypal' && !form.querySelector('[name="email"]');
        var button = form.querySelector('button[type="submit"]');
        button.disabled = true;
        post(payUrl, body).then(
          function (r) {
            button.disabled = false;
            if (!r.ok) {
              showError(form, 'err-' + method, r.json);
              poll();
              return;
            }
            var next = r.json.next_action;
            if (next && next.type === 'redirect') {
              window.location.assign(next.url);
              return;
            }
            if (next && next.type === 'wallet_deposit') {
              showWallet(next);
              return;
            }
            if (next && next.type === 'stk_push') {
              text('status-headline', 'Check your phone');
              text('status-detail', 'We sent a payment request to ' + next.phone + '. Enter your M-Pesa PIN on your phone to pay.');
              button.disabled = true;
            }
            fetch(statusUrl, { credentials: 'same-origin' })
              .then(function (res) {
                return res.json();
              })
              .then(applyStatus, function () {});
          },
          function () {
            button.disabled = false;
            text('err-' + method, 'Network problem. Please try again.');
          },
        );
      });
    });

    var depositForm = document.getElementById('deposit-form');
    if (depositForm) {
      depositForm.addEventListener('submit', function (e) {
        e.preventDefault();
        clearErrors(depositForm);
        var body = {};
        new FormData(depositForm).forEach(function (v, k) {
          body[k] = String(v);
        });
        text('deposit-result', '');
        post(depositUrl, body).then(function (r) {
          if (!r.ok) {
            showError(depositForm, 'err-deposit', r.json);
            return;
          }
          var d = r.json.deposit;
          text(
            'deposit-result',
            d.status === 'credited'
              ? 'Deposit credited to this payment.'
              : 'Deposit not credited: it was kept as an unmatched deposit (' + d.reason + ') for the merchant to see.',
          );
          fetch(statusUrl, { credentials: 'same-origin' })
            .then(function (res) {
              return res.json();
            })
            .then(applyStatus, function () {});
        });
      });
    }

    document.querySelectorAll('button[data-copy]').forEach(function (b) {
      b.addEventListener('click', function () {
        var value = document.getElementById(b.getAttribute('data-copy')).textContent;
        var done = function () {
          text('copy-status', 'Copied: ' + value);
        };
        if (navigator.clipboard && navigator.clipboard.writeText)
          navigator.clipboard.writeText(value).then(done, function () {
            text('copy-status', 'Select the text to copy it.');
          });
        else text('copy-status', 'Select the text to copy it.');
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    if (document.body.getAttribute('data-page') === 'paypal') paypalPage();
    else checkoutPage();
  });
})();
