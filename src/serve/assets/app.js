// docnav's web app: the live parts of the server-rendered pages (search as you type, the
// Reader's sections, the Ask stream, uploads and replays). It talks only to this server's JSON
// API (/api/v1/…). Document text never becomes markup: every string goes into the page through
// textContent, after visible() has made control and bidi characters visible, as the server's
// templates do. The one exception is the Reader's formatted section, HTML the server rendered
// and sanitized (src/serve/render.rs), parsed in an inert <template>.
'use strict';

(() => {
  // ---------------------------------------------------------------- helpers

  /** Control characters (but tab and newline), DEL, C1 controls and the bidi embeddings,
   * overrides and isolates shown as visible escapes, like the server's for_display. */
  const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
  function visible(text) {
    return String(text ?? '').replace(UNSAFE, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
  }

  /** A new element: `attrs` are properties or data-/aria- attributes; children are nodes or
   * strings (made visible, as text). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key.startsWith('data-') || key.startsWith('aria-') || key === 'role') {
        node.setAttribute(key, value);
      } else if (key === 'href') node.setAttribute('href', value);
      else node[key] = value;
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(visible(child)));
    }
    return node;
  }

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

  /** An error from the API: its `detail`, or what went wrong on the way. */
  async function apiError(response) {
    try {
      const body = await response.json();
      return new Error(body.detail || body.error || `HTTP ${response.status}`);
    } catch {
      return new Error(`HTTP ${response.status} ${response.statusText}`);
    }
  }

  /** This page's session: `csrf`, the token every request that spends or stores something
   * sends in X-Docnav-Csrf, and `login`, whether the server needs its token (then the header
   * offers "Log out"). Fetched once per page. */
  let sessionInfo = null;
  function session() {
    sessionInfo ||= fetch('/api/v1/session', { credentials: 'same-origin' })
      .then((r) => (r.ok ? r.json() : {}))
      .catch(() => ({}));
    return sessionInfo;
  }

  /** `headers` with this session's CSRF token added. */
  async function withCsrf(headers) {
    const { csrf } = await session();
    return { ...(headers || {}), 'X-Docnav-Csrf': csrf || '' };
  }

  async function getJson(url, options) {
    const opts = { credentials: 'same-origin', ...options };
    if (opts.method && opts.method !== 'GET') opts.headers = await withCsrf(opts.headers);
    const response = await fetch(url, opts);
    if (!response.ok) throw await apiError(response);
    return response.json();
  }

  function docUrl(docId, structure, extra) {
    const base = `/doc/${encodeURIComponent(docId)}/${extra || ''}`;
    return structure ? `${base}#${structure}` : base;
  }

  function locationOf(item) {
    if (item.pages) return item.pages[0] === item.pages[1] ? `page ${item.pages[0]}` : `pages ${item.pages[0]}–${item.pages[1]}`;
    if (item.lines) return `lines ${item.lines[0]}–${item.lines[1]}`;
    if (item.paragraphs) return `paragraphs ${item.paragraphs[0]}–${item.paragraphs[1]}`;
    return '';
  }

  function debounce(fn, ms) {
    let timer;
    return (...args) => {
      clearTimeout(timer);
      timer = setTimeout(() => fn(...args), ms);
    };
  }

  /** True when the key event is typed into a field (shortcuts stay out of its way). */
  function typing(event) {
    const t = event.target;
    return t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
  }

  function snippetNode(parts) {
    const p = el('p', { class: 'snippet' });
    for (const part of parts || []) p.append(part.hit ? el('mark', {}, part.text) : visible(part.text));
    return p;
  }

  // ---------------------------------------------------------------- keyboard help

  const keyHandlers = [];
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Escape' && typing(event)) {
      event.target.blur();
      return;
    }
    if (typing(event)) return;
    if (event.key === '?') {
      const dialog = $('#keys-help');
      if (dialog && !dialog.open) dialog.showModal();
      event.preventDefault();
      return;
    }
    for (const handler of keyHandlers) {
      if (handler(event)) {
        event.preventDefault();
        return;
      }
    }
  });

  // ---------------------------------------------------------------- Library

  function library() {
    const input = $('#q');
    const results = $('#results');
    const status = $('#search-status');
    let inFlight = null;
    const search = debounce(async () => {
      const q = input.value.trim();
      if (inFlight) inFlight.abort();
      if (!q) {
        results.replaceChildren();
        status.textContent = '';
        return;
      }
      inFlight = new AbortController();
      status.textContent = 'Searching…';
      try {
        const url = `/api/v1/search?k=10&budget=400&q=${encodeURIComponent(q)}`;
        const data = await getJson(url, { signal: inFlight.signal });
        results.replaceChildren(...data.results.map((hit) => {
          const path = [hit.doc_id, ...hit.titles].join(' › ');
          return el('li', {},
            el('a', { href: docUrl(hit.doc_id, hit.structure) }, path),
            el('span', { class: 'meta' }, ` ${hit.structure ? '§' + hit.structure + '  ' : ''}${locationOf(hit)}  score ${hit.score.toFixed(2)}`),
            snippetNode(hit.snippet));
        }));
        status.textContent = data.results.length
          ? `${data.results.length} sections, best first (BM25)`
          : `No section matches “${visible(q)}”.`;
      } catch (e) {
        if (e.name !== 'AbortError') status.textContent = `Search failed: ${visible(e.message)}`;
      }
    }, 120);
    input.addEventListener('input', search);
    $('#search-form').addEventListener('submit', (event) => {
      event.preventDefault();
      search();
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown') {
        const first = $('a', results);
        if (first) {
          first.focus();
          event.preventDefault();
        }
      }
    });
    results.addEventListener('keydown', (event) => {
      const links = $$('a', results);
      const at = links.indexOf(document.activeElement);
      if (at < 0) return;
      if (event.key === 'ArrowDown' && at + 1 < links.length) links[at + 1].focus();
      else if (event.key === 'ArrowUp') (at > 0 ? links[at - 1] : input).focus();
      else return;
      event.preventDefault();
    });
    keyHandlers.push((event) => {
      if (event.key === '/') {
        input.focus();
        return true;
      }
      return false;
    });
  }

  // ---------------------------------------------------------------- Reader

  function reader() {
    const root = $('.reader');
    const docId = root.dataset.doc;
    const pane = $('#section');
    const tree = $('.tree');
    const items = () => $$('li[role=treeitem]', tree).filter((li) => li.offsetParent !== null);
    const params = new URLSearchParams(location.search);
    // The mark (?mark=A-B, an evidence span) belongs to the section the page opened on.
    const opened = params.get('s') ?? parseHash().structure;
    const markParam = (params.get('mark') || '').match(/^(\d+)-(\d+)$/);
    // ?view=source: the numbered source lines; otherwise the section formatted.
    const sourceView = params.get('view') === 'source';
    const viewToggle = $('#view-toggle');

    // Twisties for items with children.
    for (const li of $$('li[aria-expanded]', tree)) {
      const twisty = el('button', { class: 'twisty', type: 'button', tabIndex: -1, 'aria-hidden': 'true' });
      twisty.addEventListener('click', () => toggle(li));
      li.prepend(twisty);
    }

    function toggle(li, open) {
      if (!li.hasAttribute('aria-expanded')) return;
      const expanded = open ?? li.getAttribute('aria-expanded') !== 'true';
      li.setAttribute('aria-expanded', String(expanded));
    }

    function focusItem(li) {
      for (const other of $$('li[tabindex="0"]', tree)) other.tabIndex = -1;
      li.tabIndex = 0;
      li.focus();
    }

    function selectInOutline(structure) {
      for (const li of $$('li[aria-selected]', tree)) li.removeAttribute('aria-selected');
      const li = structure ? $(`li[data-s="${CSS.escape(structure)}"]`, tree) : null;
      if (!li) return;
      li.setAttribute('aria-selected', 'true');
      for (let p = li.parentElement; p && p !== tree; p = p.parentElement) {
        if (p.matches('li[aria-expanded]')) p.setAttribute('aria-expanded', 'true');
      }
      for (const other of $$('li[tabindex="0"]', tree)) other.tabIndex = -1;
      li.tabIndex = 0;
      li.scrollIntoView({ block: 'nearest' });
    }

    tree.addEventListener('keydown', (event) => {
      const li = event.target.closest('li[role=treeitem]');
      if (!li) return;
      const visibleItems = items();
      const at = visibleItems.indexOf(li);
      switch (event.key) {
        case 'ArrowDown': if (at + 1 < visibleItems.length) focusItem(visibleItems[at + 1]); break;
        case 'ArrowUp': if (at > 0) focusItem(visibleItems[at - 1]); break;
        case 'Home': focusItem(visibleItems[0]); break;
        case 'End': focusItem(visibleItems[visibleItems.length - 1]); break;
        case 'ArrowRight':
          if (li.getAttribute('aria-expanded') === 'false') toggle(li, true);
          else if (li.getAttribute('aria-expanded') === 'true') {
            const child = $('li[role=treeitem]', li);
            if (child) focusItem(child);
          }
          break;
        case 'ArrowLeft':
          if (li.getAttribute('aria-expanded') === 'true') toggle(li, false);
          else {
            const parent = li.parentElement.closest('li[role=treeitem]');
            if (parent) focusItem(parent);
          }
          break;
        case 'Enter': case ' ':
          location.hash = li.dataset.s;
          break;
        default: return;
      }
      event.preventDefault();
    });
    tree.addEventListener('click', (event) => {
      const li = event.target.closest('li[role=treeitem]');
      if (li && !event.target.closest('.twisty')) {
        for (const other of $$('li[tabindex="0"]', tree)) other.tabIndex = -1;
        li.tabIndex = 0;
      }
    });

    function parseHash() {
      const raw = decodeURIComponent(location.hash.slice(1));
      const [structure, line] = raw.split('@');
      return { structure: /^[0-9.]*$/.test(structure) ? structure : '', line: +line || 0 };
    }

    /** Whether the fragment names a section (`#2.1`, `#2.1@N`, none), not a line (`#LN`). */
    const sectionHash = () => /^(#[0-9.]*(@\d+)?)?$/.test(location.hash);

    function linkTo(structure, label) {
      return el('a', { href: structure ? `#${structure}` : '#', 'data-s': structure }, label);
    }

    /** The URL of this view's other one (formatted ⇄ source), keeping the mark and section. */
    function toggleHref() {
      const other = new URLSearchParams(location.search);
      if (sourceView) other.delete('view');
      else other.set('view', 'source');
      const query = other.toString();
      return `${location.pathname}${query ? '?' + query : ''}${location.hash}`;
    }

    /** The section pane the server renders for `structure` (line `line` marked), as a node. */
    async function paneFor(structure, line, offset) {
      const q = new URLSearchParams({ part: 'section', s: structure });
      if (sourceView) q.set('view', 'source');
      if (markParam && structure === opened) q.set('mark', `${markParam[1]}-${markParam[2]}`);
      if (line) q.set('line', line);
      if (offset) q.set('offset', offset);
      const response = await fetch(`${location.pathname}?${q}`, { credentials: 'same-origin' });
      const template = document.createElement('template');
      template.innerHTML = await response.text();
      const pane = $('.pane', template.content);
      if (!response.ok || !pane) throw new Error($('.error-detail', template.content)?.textContent || `HTTP ${response.status}`);
      return pane;
    }

    /** After a pane is in place: the outline, the title, the toggle, the scroll. */
    function shown(line) {
      const shownPane = $('.pane', pane);
      if (!shownPane) return;
      selectInOutline(shownPane.dataset.s);
      document.title = `${shownPane.dataset.title} · docnav`;
      if (viewToggle) viewToggle.setAttribute('href', toggleHref());
      const target = $('.target', pane) || (line ? null : $('.marked', pane));
      if (target) target.scrollIntoView({ block: 'center' });
      else if (!location.hash.startsWith('#L')) {
        pane.scrollTop = 0;
        window.scrollTo({ top: 0 });
      }
    }

    async function show() {
      const { structure, line } = parseHash();
      pane.setAttribute('aria-busy', 'true');
      try {
        pane.replaceChildren(await paneFor(structure, line));
        shown(line);
      } catch (e) {
        pane.replaceChildren(el('p', { class: 'error-detail', role: 'alert' }, e.message));
      } finally {
        pane.setAttribute('aria-busy', 'false');
      }
    }

    // Links to a section of this document move by the fragment, without a reload; "Read on"
    // appends the next page of the text.
    root.addEventListener('click', async (event) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
      const more = event.target.closest('a.more');
      if (more) {
        event.preventDefault();
        const offset = new URL(more.href).searchParams.get('offset');
        const next = await paneFor($('.pane', pane).dataset.s, parseHash().line, offset);
        more.before($('.section-body', next));
        const further = $('a.more', next);
        if (further) more.replaceWith(further);
        else more.remove();
        return;
      }
      const link = event.target.closest('a[data-s]');
      if (!link || event.target.closest('.twisty')) return;
      event.preventDefault();
      location.hash = link.dataset.s;
      if (link.dataset.s === '' && location.hash === '') show();
    });

    window.addEventListener('hashchange', () => { if (sectionHash()) show(); });
    // The server rendered the section the query names; a fragment naming another section or a
    // line (`#2.1`, `#2.1@N`, from the Library and Ask) is fetched.
    if (/^#[0-9.]*(@\d+)?$/.test(location.hash) && location.hash !== '#') {
      const { structure, line } = parseHash();
      if (structure !== ($('.pane', pane)?.dataset.s ?? '') || line) show();
      else shown(0);
    } else {
      shown(0);
    }

    const hits = $('#hits');
    $('#find-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const q = $('#find-q').value.trim();
      if (!q) return;
      try {
        const data = await getJson(`/api/v1/search?k=20&budget=200&doc_id=${encodeURIComponent(docId)}&q=${encodeURIComponent(q)}`);
        hits.replaceChildren(el('h2', {}, `find: ${data.results.length} sections`),
          el('ol', { class: 'hit-list' }, data.results.map((h) => el('li', {},
            linkTo(h.structure, `${h.structure ? '§' + h.structure + ' ' : ''}${h.titles.join(' › ') || '(document)'}`),
            snippetNode(h.snippet)))));
      } catch (e) {
        hits.replaceChildren(el('p', { class: 'error-detail' }, e.message));
      }
    });
    $('#grep-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const pattern = $('#grep-q').value;
      if (!pattern) return;
      try {
        const data = await getJson(`/api/v1/docs/${encodeURIComponent(docId)}/grep?ignore_case=${$('#grep-i').checked}&pattern=${encodeURIComponent(pattern)}`);
        const list = el('ol', { class: 'hit-list' }, data.matches.map((m) => el('li', {},
          linkTo(`${m.structure}@${m.line}`, `${m.structure || '/'}:${m.line}`), ' ', el('code', {}, m.text))));
        hits.replaceChildren(el('h2', {}, `grep: ${data.matches.length} lines`), list, data.note ? el('p', { class: 'meta' }, data.note) : '');
      } catch (e) {
        hits.replaceChildren(el('p', { class: 'error-detail' }, e.message));
      }
    });

    keyHandlers.push((event) => {
      switch (event.key) {
        case '/': $('#find-q').focus(); return true;
        case 'g': $('#grep-q').focus(); return true;
        case 'j': { const a = $('.neighbours a[rel=next]', pane); if (a) location.hash = a.dataset.s; return true; }
        case 'k': { const a = $('.neighbours a[rel=prev]', pane); if (a) location.hash = a.dataset.s; return true; }
        case 't': {
          const li = $('li[tabindex="0"]', tree) || items()[0];
          if (li) focusItem(li);
          return true;
        }
        case 's': pane.focus(); return true;
        default: return false;
      }
    });
  }

  // ---------------------------------------------------------------- Ask

  /** Parse a Server-Sent Events body: calls onEvent(name, data) per event. */
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          let val = colon < 0 ? '' : line.slice(colon + 1);
          if (val.startsWith(' ')) val = val.slice(1);
          if (field === 'event') name = val;
          else if (field === 'data') data.push(val);
        }
        if (data.length) onEvent(name, data.join('\n'));
      }
    }
  }

  function ask() {
    const form = $('#ask-form');
    const status = $('#run-status');
    const stop = $('#stop-button');
    const button = $('#ask-button');
    let controller = null;
    // The conversation: the turns the server's `done` events gave, oldest first,
    // sent back as `memory` so a follow-up is rewritten to stand alone. Kept by the page (this
    // tab), not the server.
    const CONVERSATION_KEY = 'docnav-conversation';
    let conversation = [];
    try { conversation = JSON.parse(sessionStorage.getItem(CONVERSATION_KEY) || '[]'); } catch (e) { conversation = []; }
    if (!Array.isArray(conversation)) conversation = [];

    function showConversation() {
      try { sessionStorage.setItem(CONVERSATION_KEY, JSON.stringify(conversation)); } catch (e) { /* private mode */ }
      $('#conversation').hidden = !conversation.length;
      const n = conversation.length;
      $('#conversation-text').textContent = n
        ? `Follow-up of ${n} earlier question${n > 1 ? 's' : ''} (rewritten to stand alone first): ${conversation.map((t) => visible(t.question)).join(' · ')} `
        : '';
    }
    showConversation();
    $('#new-conversation').addEventListener('click', () => { conversation = []; showConversation(); });

    function lane(step) {
      if (step.actor === 'orchestrator') return $('#orchestrator ol');
      let box = $(`.lane[data-actor="${CSS.escape(step.actor)}"] ol`);
      if (box) return box;
      const roundNo = step.round || 1;
      let round = $(`.round[data-round="${roundNo}"] .lanes`);
      if (!round) {
        const section = el('section', { class: 'round', 'data-round': roundNo }, el('h3', {}, `Round ${roundNo}`), el('div', { class: 'lanes' }));
        $('#rounds').append(section);
        round = $('.lanes', section);
      }
      const laneBox = el('div', { class: 'lane', 'data-actor': step.actor }, el('h4', {}, step.actor), el('ol'));
      round.append(laneBox);
      return $('ol', laneBox);
    }

    function showStep(step) {
      // The text is made by the server, as the trace timeline's: shown as it is.
      lane(step).append(el('li', { class: `step ${step.kind}${step.error ? ' failed' : ''}` }, step.text));
    }

    function showWritten(written) {
      $('#written').hidden = !written;
      if (!written) return;
      $('#sentences').replaceChildren(...(written.sentences || []).map((sentence) => el('li',
        { class: `sentence${sentence.supported ? '' : ' unsupported'}` },
        sentence.text,
        ' ', (sentence.citations || []).map((n) => `[${n}]`).join(' '),
        sentence.supported ? '' : el('span', { class: 'error-detail' }, ` — unsupported: ${sentence.problem || 'its citation does not hold'}`))));
      $('#written-missing').textContent = written.missing || '';
    }

    function showAnswer(answer) {
      const standalone = $('#standalone');
      standalone.hidden = !answer.standalone_question;
      standalone.textContent = answer.standalone_question ? `Searched for: ${answer.standalone_question}` : '';
      showWritten(answer.answer);
      const verdict = $('#verdict');
      if (answer.verdict) {
        const v = answer.verdict;
        verdict.replaceChildren(el('span', { class: `verdict v-${v.verdict}` }, v.verdict),
          v.missing ? ` — ${v.verdict === 'absent' ? 'not covered' : 'missing'}: ${v.missing}` : '',
          el('span', { class: 'meta' }, ` (judged by ${v.judged_by})`));
      } else {
        verdict.replaceChildren(el('span', { class: 'verdict v-baseline' }, 'BM25 baseline'), el('span', { class: 'meta' }, ' — ranked by keywords only, no model judged it'));
      }
      const s = answer.stats || {};
      $('#evidence').replaceChildren(...answer.evidence.map((e, i) => el('li', { class: 'evidence-item' },
        el('a', { class: 'evidence-link', href: docUrl(e.doc_id, e.structure) }, [e.doc_id, ...e.path].join(' › ')),
        el('span', { class: 'meta' }, ` ${e.structure ? '§' + e.structure + '  ' : ''}${locationOf(e)}  score ${e.score.toFixed(3)}`),
        el('details', { open: i === 0 }, el('summary', {}, `${Array.from(e.text).length} chars`), el('pre', {}, e.text)))));
      if (!answer.evidence.length) $('#evidence').append(el('li', {}, 'No evidence.'));
      for (const w of answer.worker_errors || []) {
        $('#evidence').after(el('p', { class: 'error-detail' }, `Worker ${w.worker} failed: ${w.error}`));
      }
      const from = answer.from_trace;
      status.textContent = from
        ? `Answered from trace ${from.name} (${from.recorded}): the same question over unchanged documents, recorded with ${from.llm_calls} model calls; no call now. Tick "Ask afresh" to ask the model again.`
        : `Answered: ${answer.evidence.length} evidence, ${s.llm_calls || 0} model calls, ${(s.prompt_tokens || 0) + (s.completion_tokens || 0)} tokens, ${s.wall_ms} ms.`;
      $('#answer').hidden = false;
    }

    function showDone(done) {
      if (done.turn) {
        conversation = conversation.concat([done.turn]).slice(-8);
        showConversation();
      }
      const links = $$('.evidence-link', $('#evidence'));
      (done.reader_links || []).forEach((href, i) => { if (links[i]) links[i].setAttribute('href', href); });
      $('#trace-link').replaceChildren(done.trace
        ? el('a', { href: `/trace/${encodeURIComponent(done.trace)}` }, 'Open the trace of this run')
        : '');
    }

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const question = $('#question').value.trim();
      if (!question) return;
      const lexical = $('input[name=mode]:checked', form)?.value === 'lexical';
      const docIds = $('#doc-ids').value.split(/[\s,]+/).filter(Boolean);
      $('#orchestrator ol').replaceChildren();
      $('#rounds').replaceChildren();
      $('#evidence').replaceChildren();
      $('#verdict').replaceChildren();
      $('#trace-link').replaceChildren();
      for (const p of $$('#answer > p.error-detail')) p.remove();
      $('#answer').hidden = true;
      $('#progress').hidden = lexical;
      controller = new AbortController();
      button.disabled = true;
      stop.hidden = false;
      const started = performance.now();
      status.textContent = lexical ? 'Ranking sections…' : 'Asking…';
      try {
        const response = await fetch('/api/v1/ask', {
          method: 'POST',
          credentials: 'same-origin',
          headers: await withCsrf({ 'Content-Type': 'application/json', Accept: 'text/event-stream' }),
          body: JSON.stringify({
            question, lexical, doc_ids: docIds,
            answer: !lexical && $('#write-answer').checked,
            no_cache: !lexical && $('#no-cache').checked,
            memory: lexical ? [] : conversation,
          }),
          signal: controller.signal,
        });
        if (!response.ok) {
          const error = await apiError(response);
          const retry = response.headers.get('Retry-After');
          status.textContent = `${error.message}${retry ? ` (retry in ${retry} s)` : ''}`;
          return;
        }
        let steps = 0;
        await readEvents(response, (name, data) => {
          const value = JSON.parse(data);
          if (name === 'step') {
            steps += 1;
            showStep(value);
            status.textContent = `Running… ${steps} events, ${((performance.now() - started) / 1000).toFixed(1)} s`;
          } else if (name === 'answer') showAnswer(value);
          else if (name === 'done') showDone(value);
          else if (name === 'error') {
            status.textContent = `The run failed: ${value.detail}`;
            if (value.trace) $('#trace-link').replaceChildren(el('a', { href: `/trace/${encodeURIComponent(value.trace)}` }, 'Open the trace of this run'));
            $('#answer').hidden = false;
          }
        });
      } catch (e) {
        status.textContent = e.name === 'AbortError' ? 'Stopped.' : `The request failed: ${visible(e.message)}`;
      } finally {
        button.disabled = false;
        stop.hidden = true;
        controller = null;
      }
    });
    stop.addEventListener('click', () => controller && controller.abort());
    // A link (`/ask?q=…`) fills the question in; only the person's click on Ask runs it, so a
    // page elsewhere cannot spend the model's money by sending the browser here.
  }

  // ---------------------------------------------------------------- Traces

  function traces() {
    const filter = $('#trace-filter');
    const rows = $$('table.traces tbody tr');
    filter.addEventListener('input', () => {
      const needle = filter.value.trim().toLowerCase();
      for (const row of rows) row.hidden = needle && !row.textContent.toLowerCase().includes(needle);
    });
    const compare = $('#compare-button');
    const picked = () => $$('input.pick:checked');
    document.addEventListener('change', (event) => {
      if (event.target.matches('input.pick')) compare.disabled = picked().length !== 2;
    });
    compare.addEventListener('click', () => {
      const [a, b] = picked().map((p) => p.value);
      if (a && b) location.href = `/trace/${encodeURIComponent(a)}?compare=${encodeURIComponent(b)}`;
    });
    $('#upload-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const file = $('#upload').files[0];
      const status = $('#upload-status');
      if (!file) {
        status.textContent = 'Choose a .jsonl trace first.';
        return;
      }
      status.textContent = 'Uploading…';
      try {
        const response = await fetch('/api/v1/traces', {
          method: 'POST', credentials: 'same-origin', headers: await withCsrf({ 'Content-Type': 'application/x-ndjson' }), body: file,
        });
        if (!response.ok) throw await apiError(response);
        const { name } = await response.json();
        location.href = `/trace/${encodeURIComponent(name)}`;
      } catch (e) {
        status.textContent = `Upload failed: ${visible(e.message)}`;
      }
    });
  }

  function trace() {
    for (const button of $$('.replay-button')) {
      button.addEventListener('click', async () => {
        const box = button.closest('.trace-head').querySelector('.replay-result');
        button.disabled = true;
        box.replaceChildren(el('p', { class: 'meta' }, 'Replaying with the recorded replies…'));
        try {
          const report = await getJson(`/api/v1/traces/${encodeURIComponent(button.dataset.name)}/replay`, { method: 'POST' });
          const v = report.verdict;
          const parts = report.notes.map((n) => el('p', { class: 'meta' }, `note: ${n}`));
          const headline = {
            identical: `Replay identical: ${v.events} events, ${v.model_replies} model replies from the trace, ${v.evidence} evidence.`,
            identical_to_cut: `Replayed up to the cut: ${v.events} events identical (${v.error}).`,
            failed_the_same_way: `Replay identical: ${v.events} events; the recorded run failed the same way: ${v.error}`,
            diverged: `Replay diverged in ${v.actor} ${v.step ? 'at step ' + v.step : 'before its first step'} (event ${v.seq}).`,
            failed: `Replay failed: ${v.error}`,
          }[v.status];
          parts.unshift(el('p', { class: `replay-status ${report.success ? 'ok' : 'bad'}`, role: 'status' }, headline));
          if (v.status === 'diverged') {
            parts.push(el('dl', { class: 'divergence' },
              el('dt', {}, 'expected'), el('dd', {}, el('code', {}, v.expected)),
              el('dt', {}, 'actual'), el('dd', {}, el('code', {}, v.actual))));
            if (v.diff.length) {
              const pre = el('pre', { class: 'diff' });
              for (const line of v.diff) {
                const t = line.trimStart();
                pre.append(el('span', { class: t.startsWith('-') ? 'del' : t.startsWith('+') ? 'add' : '' }, line), '\n');
              }
              parts.push(pre);
            }
            const step = $(`.lane h3`, document) && $$(`.lane`).find((l) => $('h3', l).textContent === v.actor);
            if (step) step.classList.add('diverged');
          }
          box.replaceChildren(...parts);
        } catch (e) {
          box.replaceChildren(el('p', { class: 'replay-status bad', role: 'alert' }, e.message));
        } finally {
          button.disabled = false;
        }
      });
    }
  }

  const pages = { library, reader, ask, traces, trace };
  const init = pages[document.body.dataset.page];
  if (init) init();
  if (document.body.dataset.page !== 'login') {
    session().then(({ login }) => { if (login) $('#logout').hidden = false; });
  }
})();
