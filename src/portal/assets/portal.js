/* global document, window, fetch */
/* Portway buyer portal: small improvements on pages that work without it. No inline script (the
   pages' CSP allows only this origin's files); loaded with `defer`.

   Typeahead on the search box (`.typeahead[data-suggest-url]`): the ARIA 1.2 combobox pattern with
   a listbox popup. Typing asks the suggest service (debounced); Down/Up move through the
   suggestions (aria-activedescendant keeps focus in the box), Enter opens the highlighted product,
   Escape closes the list, and Enter with nothing highlighted submits the search form as without
   script. The number of suggestions is announced in a polite live region. */
(function () {
  'use strict';

  function typeahead(wrapper) {
    var input = wrapper.querySelector('input');
    var url = wrapper.getAttribute('data-suggest-url');
    if (!input || !url) return;
    var listId = input.id + '-suggestions';
    var list = document.createElement('ul');
    list.id = listId;
    list.className = 'typeahead__list';
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', 'Suggestions');
    list.hidden = true;
    var status = document.createElement('div');
    status.className = 'visually-hidden';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    wrapper.appendChild(list);
    wrapper.appendChild(status);

    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', listId);

    var items = [];
    var active = -1;
    var timer = 0;
    var request = 0;

    function close() {
      list.hidden = true;
      input.setAttribute('aria-expanded', 'false');
      input.removeAttribute('aria-activedescendant');
      active = -1;
    }

    function highlight(index) {
      var options = list.children;
      for (var i = 0; i < options.length; i += 1) options[i].setAttribute('aria-selected', i === index ? 'true' : 'false');
      active = index;
      if (index >= 0) {
        input.setAttribute('aria-activedescendant', options[index].id);
        options[index].scrollIntoView({ block: 'nearest' });
      } else {
        input.removeAttribute('aria-activedescendant');
      }
    }

    function show(data) {
      items = data;
      list.textContent = '';
      data.forEach(function (s, i) {
        var option = document.createElement('li');
        option.id = listId + '-' + i;
        option.className = 'typeahead__option';
        option.setAttribute('role', 'option');
        option.setAttribute('aria-selected', 'false');
        var text = document.createElement('span');
        text.textContent = s.text;
        var detail = document.createElement('span');
        detail.className = 'typeahead__detail';
        detail.textContent = [s.colour, s.brand].filter(Boolean).join(' · ');
        option.appendChild(text);
        option.appendChild(detail);
        // mousedown, not click: it comes before the box loses focus and closes the list.
        option.addEventListener('mousedown', function (event) {
          event.preventDefault();
          window.location.assign(s.href);
        });
        list.appendChild(option);
      });
      active = -1;
      input.removeAttribute('aria-activedescendant');
      if (data.length === 0) {
        close();
        status.textContent = 'No suggestions';
      } else {
        list.hidden = false;
        input.setAttribute('aria-expanded', 'true');
        status.textContent = data.length + (data.length === 1 ? ' suggestion' : ' suggestions') + '. Use the up and down arrows to choose one.';
      }
    }

    function fetchSuggestions() {
      var q = input.value.trim();
      if (q.length < 2) {
        items = [];
        close();
        return;
      }
      var mine = ++request;
      fetch(url + '?q=' + encodeURIComponent(q), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (res) { return res.ok ? res.json() : { data: [] }; })
        .then(function (body) { if (mine === request && document.activeElement === input) show(body.data || []); })
        .catch(function () { /* the form still works without suggestions */ });
    }

    input.addEventListener('input', function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(fetchSuggestions, 150);
    });
    input.addEventListener('keydown', function (event) {
      var open = !list.hidden && items.length > 0;
      if (event.key === 'ArrowDown') {
        if (!open) { if (items.length > 0) { list.hidden = false; input.setAttribute('aria-expanded', 'true'); } else return; }
        event.preventDefault();
        highlight(active + 1 >= items.length ? 0 : active + 1);
      } else if (event.key === 'ArrowUp') {
        if (!open) return;
        event.preventDefault();
        highlight(active <= 0 ? items.length - 1 : active - 1);
      } else if (event.key === 'Enter') {
        if (open && active >= 0) {
          event.preventDefault();
          window.location.assign(items[active].href);
        }
      } else if (event.key === 'Escape') {
        if (open) {
          event.preventDefault();
          close();
        }
      }
    });
    input.addEventListener('blur', function () { close(); });
  }

  var boxes = document.querySelectorAll('.typeahead[data-suggest-url]');
  for (var i = 0; i < boxes.length; i += 1) typeahead(boxes[i]);
}());
