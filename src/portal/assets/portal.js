/* global document, window, fetch, FormData, URLSearchParams, DOMParser */
/* Portway buyer portal: small improvements on pages that work without it. No inline script (the
   pages' CSP allows only this origin's files); loaded with `defer`.

   Typeahead on the search box (`.typeahead[data-suggest-url]`): the ARIA 1.2 combobox pattern with
   a listbox popup. Typing asks the suggest service (debounced); Down/Up move through the
   suggestions (aria-activedescendant keeps focus in the box), Enter opens the highlighted product,
   Escape closes the list, and Enter with nothing highlighted submits the search form as without
   script. The number of suggestions is announced in a polite live region.

   Filters and sort that apply as they change (the search form's `.catalogue`): ticking a filter or
   choosing an order fetches the page the form would open, puts its results, filters and title in
   place of these, keeps the address (history.replaceState) and focus on the same control, and
   announces the new count in a polite live region. Their buttons are hidden (`.js-live` on <html>);
   without script, or when the fetch fails, the form is submitted as without it. */
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

    // A newer answer replaces the list; the suggestion highlighted stays highlighted when it is still
    // in it (a Down pressed while a slower answer was on its way is not lost).
    function show(data, q) {
      var kept = active >= 0 && items[active] ? items[active].href : null;
      items = data;
      list.textContent = '';
      list.setAttribute('data-query', q);
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
        var again = kept === null ? -1 : data.findIndex(function (s) { return s.href === kept; });
        if (again >= 0) highlight(again);
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
        .then(function (body) { if (mine === request && document.activeElement === input) show(body.data || [], q); })
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

  var WIDE = '(min-width: 56rem)';

  // Where ::details-content cannot be styled, the stylesheet cannot show the filters beside the
  // results on a wide screen: open the disclosure instead.
  function openWhenWide(scope) {
    var details = scope.querySelector('details.filters');
    var styled = window.CSS && window.CSS.supports && window.CSS.supports('selector(::details-content)');
    if (details && !styled && window.matchMedia && window.matchMedia(WIDE).matches) details.open = true;
  }

  function liveResults(form) {
    if (!form.querySelector('.catalogue') || !window.fetch || !window.DOMParser || !window.FormData || !window.URLSearchParams) return;
    document.documentElement.classList.add('js-live');
    openWhenWide(form);
    var status = document.createElement('div');
    status.className = 'visually-hidden';
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    // Outside .catalogue, which is replaced: a live region announces changes, not its own arrival.
    form.appendChild(status);
    var request = 0;

    function addressOf() {
      var query = new URLSearchParams(new FormData(form)).toString();
      return (form.getAttribute('action') || '/') + (query ? '?' + query : '');
    }

    // The same control in the new results: a filter by its name and value, the sort by its id; else the results.
    function sameControl(scope, control) {
      if (control.type === 'checkbox') {
        var checkboxes = scope.querySelectorAll('input[type="checkbox"]');
        for (var j = 0; j < checkboxes.length; j += 1) {
          if (checkboxes[j].name === control.name && checkboxes[j].value === control.value) return checkboxes[j];
        }
      } else if (control.id) {
        var byId = scope.querySelector('#' + control.id);
        if (byId) return byId;
      }
      var results = scope.querySelector('.catalogue__results');
      if (results) results.setAttribute('tabindex', '-1');
      return results;
    }

    function show(page, url, control) {
      var next = page.querySelector('form.catalogue-search .catalogue');
      var current = form.querySelector('.catalogue');
      if (!next || !current) throw new Error('not a search page');
      var wasOpen = current.querySelector('details.filters[open]') !== null;
      var count = next.querySelector('.results-count');
      if (count) count.removeAttribute('role');
      next = document.importNode(next, true);
      current.parentNode.replaceChild(next, current);
      var details = next.querySelector('details.filters');
      if (details && wasOpen) details.open = true;
      openWhenWide(next);
      document.title = page.title;
      var heading = page.querySelector('h1');
      var ownHeading = document.querySelector('h1');
      if (heading && ownHeading) ownHeading.textContent = heading.textContent;
      window.history.replaceState(null, '', url);
      var focus = sameControl(next, control);
      if (focus) focus.focus();
      // Emptied first, so the same count twice is still announced.
      status.textContent = '';
      window.setTimeout(function () { status.textContent = count ? count.textContent.trim() : ''; }, 50);
    }

    function update(control) {
      var url = addressOf();
      var mine = ++request;
      var current = form.querySelector('.catalogue');
      if (current) current.setAttribute('aria-busy', 'true');
      fetch(url, { headers: { accept: 'text/html' }, credentials: 'same-origin' })
        .then(function (res) {
          // A redirect is the sign-in page (the session ended); an error status is a page of its own.
          if (!res.ok || res.redirected) throw new Error('not a search page');
          return res.text();
        })
        .then(function (html) {
          if (mine !== request) return;
          show(new DOMParser().parseFromString(html, 'text/html'), url, control);
        })
        .catch(function () { if (mine === request) window.location.assign(url); });
    }

    form.addEventListener('change', function (event) {
      var target = event.target;
      if (!target || !target.closest || !target.closest('.catalogue')) return;
      if (target.type === 'checkbox' || target.tagName === 'SELECT') update(target);
    });
  }

  var searchForm = document.querySelector('form.catalogue-search');
  if (searchForm) liveResults(searchForm);
}());

/* The product page's colour × size grid (`[data-colour-grid]`: a form, or for a role that may not
   order a block without quantity boxes), which works without this:
   - the arrow keys move between its quantity boxes as in a spreadsheet: Left and Right to the
     previous or next box of the colour (once the caret is at the start or end of what is typed),
     Up and Down to the same size in the colour above or below, skipping a colour not made in that
     size. The box moved to has its text selected, so typing replaces it. Tab is left alone.
   - "Show SKU and EAN" also sets a class (for browsers without CSS :has) and puts `codes=1` in the
     address, so a reload keeps the choice. */
(function () {
  'use strict';

  var BOX = 'colour-grid__qty';

  function boxesOf(element) {
    return element ? element.querySelectorAll('.' + BOX) : [];
  }

  /** The box the key moves to from `input`, or null: the key stays the box's own. */
  function target(table, input, key) {
    var row = input.closest('tr');
    var cell = input.closest('td');
    if (!row || !cell) return null;
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      var end = input.value.length;
      if (key === 'ArrowLeft' && input.selectionStart !== 0) return null;
      if (key === 'ArrowRight' && input.selectionEnd !== end) return null;
      var inRow = Array.prototype.slice.call(boxesOf(row));
      return inRow[inRow.indexOf(input) + (key === 'ArrowLeft' ? -1 : 1)] || null;
    }
    var rows = table.tBodies[0].rows;
    var inCell = Array.prototype.slice.call(boxesOf(cell));
    var nth = inCell.indexOf(input);
    var step = key === 'ArrowUp' ? -1 : 1;
    for (var r = row.sectionRowIndex + step; r >= 0 && r < rows.length; r += step) {
      var there = boxesOf(rows[r].cells[cell.cellIndex]);
      if (there.length > 0) return there[Math.min(nth, there.length - 1)];
    }
    return null;
  }

  function colourGrid(form) {
    var table = form.querySelector('table');
    if (!table || !table.tBodies[0]) return;
    table.addEventListener('keydown', function (event) {
      var input = event.target;
      if (!input.classList || !input.classList.contains(BOX)) return;
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].indexOf(event.key) < 0) return;
      var next = target(table, input, event.key);
      if (!next) return;
      event.preventDefault();
      next.focus();
      next.select();
    });
    var keys = form.querySelector('.colour-grid__keys');
    if (keys) keys.hidden = false;

    var toggle = form.querySelector('input[name="codes"]');
    if (!toggle) return;
    toggle.addEventListener('change', function () {
      form.classList.toggle('colour-grid--codes', toggle.checked);
      var url = new window.URL(window.location.href);
      if (toggle.checked) url.searchParams.set('codes', '1');
      else url.searchParams.delete('codes');
      window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
    });
  }

  var grids = document.querySelectorAll('[data-colour-grid]');
  for (var i = 0; i < grids.length; i += 1) colourGrid(grids[i]);
}());
