// The audit console: every read goes through the audit API with the auditor's own credential,
// so each one is recorded in their audit-{userId} stream like any other audit read. Values from
// the log are written with textContent only: recorded data is never markup.
'use strict';

const STORAGE_KEY = 'audit-console-credential';

const $ = (selector) => document.querySelector(selector);

function credential() {
  try {
    return JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
  } catch {
    return null;
  }
}

function authHeaders() {
  const c = credential();
  if (!c) return {};
  return c.kind === 'apiKey' ? { 'X-Api-Key': c.secret } : { Authorization: `Bearer ${c.secret}` };
}

class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

const url = (path, query) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
};

async function request(path, query) {
  const response = await fetch(url(path, query), { headers: authHeaders(), cache: 'no-store' });
  if (!response.ok) {
    let problem = null;
    try {
      problem = await response.json();
    } catch {
      // A body that is not a problem document: the status says enough.
    }
    throw new ApiError(response.status, problem);
  }
  return response;
}

const getJson = async (path, query) => (await request(path, query)).json();

function say(text, kind = 'error') {
  const box = $('#message');
  box.textContent = text;
  box.className = kind;
  box.hidden = !text;
}

function explain(error) {
  if (!(error instanceof ApiError)) return say(`The request failed: ${error.message}`);
  if (error.status === 403) {
    return say(
      "Refused (403 forbidden): this credential is not an auditor's. The audit API is for users with the " +
        'platform role auditor.',
    );
  }
  if (error.status === 401) return say('Not signed in (401): the service refused this credential.');
  const fields = (error.problem?.errors ?? []).map((e) => `${e.field}: ${e.message}`).join('; ');
  say(
    `${error.problem?.title ?? `HTTP ${error.status}`} (${error.status})${fields ? ` — ${fields}` : `: ${error.message}`}`,
  );
}

/** An ISO time for `at`: empty is now (left to the service), a time without offset is local time. */
function isoOrRaw(value) {
  const text = value.trim();
  if (!text || /(Z|[+-]\d\d:\d\d)$/i.test(text)) return text;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

function saveBlob(blob, filename) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

async function downloadCsv(path, query) {
  try {
    const response = await request(path, { ...query, format: 'csv' });
    const disposition = response.headers.get('content-disposition') ?? '';
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'audit.csv';
    saveBlob(await response.blob(), filename);
  } catch (error) {
    explain(error);
  }
}

function button(text, onClick, className) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  if (className) b.className = className;
  b.addEventListener('click', onClick);
  return b;
}

/**
 * One result: a caption, the downloads (CSV asked again of the API with format=csv, JSON the
 * answer shown) and the table.
 */
function show(container, { caption, columns, rows, csv, json, jsonName }) {
  container.replaceChildren();
  if (caption) {
    const p = document.createElement('p');
    p.className = 'caption';
    p.textContent = caption;
    container.append(p);
  }
  const downloads = document.createElement('div');
  downloads.className = 'downloads';
  if (csv) downloads.append(button('Download CSV', () => downloadCsv(csv.path, csv.query), 'download-csv'));
  downloads.append(
    button(
      'Download JSON',
      () => saveBlob(new Blob([JSON.stringify(json, null, 2)], { type: 'application/json' }), jsonName),
      'download-json',
    ),
  );
  container.append(downloads);
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const column of columns) {
    const th = document.createElement('th');
    th.textContent = column;
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    row.forEach((value, i) => {
      const td = tr.insertCell();
      td.textContent = value === null || value === undefined ? '' : String(value);
      if (columns[i] === 'data') td.className = 'data';
    });
  }
  if (rows.length === 0) {
    const td = body.insertRow().insertCell();
    td.colSpan = columns.length;
    td.textContent = 'Nothing.';
  }
  container.append(table);
}

const actorText = (a) =>
  `${a.credential}${a.apiKeyId ? ` key ${a.apiKeyId}` : ''}${a.impersonatorId ? ` (impersonated by ${a.impersonatorId})` : ''}`;
const reasonsText = (reasons) => reasons.map((r) => r.description).join('; ');

const formValues = (form) => Object.fromEntries(new FormData(form).entries());

// --- Event log -------------------------------------------------------------------------------

let eventsQuery = {};

async function loadEvents(query) {
  const page = await getJson('/api/audit/events', query);
  eventsQuery = query;
  const next = $('#events-next');
  next.disabled = page.nextCursor === null;
  next.dataset.cursor = page.nextCursor ?? '';
  show($('#events-result'), {
    caption: `${page.items.length} events${page.nextCursor !== null ? '; more follow (Next page)' : ''}`,
    columns: ['position', 'at', 'stream', 'type', 'user', 'credential', 'correlation id', 'data'],
    rows: page.items.map((e) => [
      e.position,
      e.metadata.at,
      e.streamId,
      e.type,
      e.metadata.actor.userId,
      actorText(e.metadata.actor),
      e.metadata.correlationId,
      JSON.stringify(e.data),
    ]),
    csv: { path: '/api/audit/events', query },
    json: page,
    jsonName: 'audit-events.json',
  });
}

// --- Resource history ------------------------------------------------------------------------

async function loadHistory({ id }) {
  const path = `/api/audit/resources/${encodeURIComponent(id.trim())}/history`;
  const history = await getJson(path);
  show($('#history-result'), {
    caption: `Resource ${history.resourceId}: ${history.steps.length} steps, oldest first`,
    columns: ['step', 'at', 'who', 'credential', 'correlation id', 'revisions', 'what changed'],
    rows: history.steps.map((s, i) => [
      i + 1,
      s.at,
      `${s.actorName ?? 'unknown'} (${s.actor.userId})`,
      actorText(s.actor),
      s.correlationId,
      s.fromRevision === s.toRevision ? s.fromRevision : `${s.fromRevision}–${s.toRevision}`,
      s.changes.map((c) => c.description).join('\n'),
    ]),
    csv: { path },
    json: history,
    jsonName: `resource-${history.resourceId}-history.json`,
  });
}

// --- Access reviews --------------------------------------------------------------------------

async function loadAccess({ id, at }) {
  const path = `/api/audit/resources/${encodeURIComponent(id.trim())}/access`;
  const query = { at: isoOrRaw(at) };
  const access = await getJson(path, query);
  show($('#access-result'), {
    caption: `Resource ${access.resourceId} at ${access.at}: ${access.status}`,
    columns: ['view', 'community', 'governed by', 'level', 'user', 'why'],
    rows: access.views.flatMap((v) =>
      v.users.map((u) => [
        v.viewKey,
        v.communityName ?? (v.communityId === null ? 'project-wide' : v.communityId),
        v.governedBy,
        v.effectivePrivacyLevel,
        `${u.name} (${u.userId})`,
        reasonsText(u.reasons),
      ]),
    ),
    csv: { path, query },
    json: access,
    jsonName: `resource-${access.resourceId}-access.json`,
  });
}

async function loadPerson({ id, at }) {
  const path = `/api/audit/users/${encodeURIComponent(id.trim())}/access`;
  const query = { at: isoOrRaw(at) };
  const access = await getJson(path, query);
  show($('#person-result'), {
    caption: `User ${access.userId} ${access.name ?? ''} at ${access.at}: account ${access.account}`,
    columns: ['project', 'view', 'community', 'resource', 'governed by', 'level', 'why'],
    rows: access.views.flatMap((v) =>
      v.resources.map((r) => [
        `${v.projectName ?? ''} (${v.projectId})`,
        v.viewKey,
        v.communityName ?? (v.communityId === null ? 'project-wide' : v.communityId),
        `${r.name} (${r.resourceId})`,
        r.governedBy,
        r.effectivePrivacyLevel,
        reasonsText(r.reasons),
      ]),
    ),
    csv: { path, query },
    json: access,
    jsonName: `user-${access.userId}-access.json`,
  });
}

async function loadIntegrity() {
  const head = await getJson('/api/audit/integrity');
  show($('#integrity-result'), {
    caption: head.kept ? 'This log keeps a hash chain.' : 'This log keeps no hash chain (docs/architecture.md).',
    columns: ['kept', 'position', 'hash'],
    rows: [[head.kept, head.position, head.hash]],
    json: head,
    jsonName: 'audit-integrity.json',
  });
}

/** The chain recomputed by the service: intact, or the first event that does not match. */
async function verifyIntegrity() {
  const result = $('#verify-result');
  result.replaceChildren();
  const waiting = document.createElement('p');
  waiting.className = 'caption';
  waiting.textContent = 'Verifying the whole log…';
  result.append(waiting);
  const answer = await getJson('/api/audit/integrity', { verify: 'true' });
  const v = answer.verification;
  if (!v) {
    waiting.textContent = 'This log keeps no hash chain (docs/architecture.md): there is nothing to verify.';
    return;
  }
  const m = v.firstMismatch;
  const problems = { hash: 'its bytes or its link do not give its hash', missing: 'it has no hash' };
  show(result, {
    caption: v.intact
      ? `Intact: all ${v.events} events checked, the chain holds (checked at ${v.checkedAt}).`
      : `NOT intact: event ${m.position} (${m.streamId} revision ${m.revision}, ${m.type}) does not match: ` +
        `${problems[m.problem] ?? m.problem} (checked at ${v.checkedAt}).`,
    columns: [
      'intact',
      'events',
      'unchained',
      'chained from',
      'first mismatch',
      'stream',
      'revision',
      'type',
      'problem',
      'checked at',
    ],
    rows: [
      [
        v.intact ? 'yes' : 'no',
        v.events,
        v.unchained,
        v.chainedFrom,
        m?.position,
        m?.streamId,
        m?.revision,
        m?.type,
        m?.problem,
        v.checkedAt,
      ],
    ],
    json: answer,
    jsonName: 'audit-integrity-verification.json',
  });
}

// --- Wiring ----------------------------------------------------------------------------------

function onSubmit(selector, run) {
  $(selector).addEventListener('submit', async (event) => {
    event.preventDefault();
    say('');
    try {
      await run(formValues(event.target));
    } catch (error) {
      explain(error);
    }
  });
}

function showTab(name) {
  for (const tab of document.querySelectorAll('.tab')) tab.hidden = tab.id !== `tab-${name}`;
  for (const b of document.querySelectorAll('nav button')) b.classList.toggle('active', b.dataset.tab === name);
}

function signedIn(yes) {
  $('#sign-in').hidden = yes;
  $('#console').hidden = !yes;
  $('#who').hidden = !yes;
}

async function start() {
  for (const b of document.querySelectorAll('nav button')) b.addEventListener('click', () => showTab(b.dataset.tab));
  $('#sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const { kind, secret } = formValues(event.target);
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ kind, secret: secret.trim() }));
    $('#credential-secret').value = '';
    await enter();
  });
  $('#sign-out').addEventListener('click', () => {
    sessionStorage.removeItem(STORAGE_KEY);
    signedIn(false);
    say('Signed out.', 'info');
  });
  onSubmit('#events-form', (values) => loadEvents(values));
  $('#events-next').addEventListener('click', async () => {
    say('');
    try {
      await loadEvents({ ...eventsQuery, cursor: $('#events-next').dataset.cursor });
    } catch (error) {
      explain(error);
    }
  });
  onSubmit('#history-form', loadHistory);
  onSubmit('#access-form', loadAccess);
  onSubmit('#person-form', loadPerson);
  onSubmit('#integrity-form', loadIntegrity);
  onSubmit('#verify-form', verifyIntegrity);
  if (credential()) await enter();
}

/** Signing in is one audit read (the integrity head): a credential that is not an auditor's stops here. */
async function enter() {
  say('');
  try {
    await loadIntegrity();
    signedIn(true);
  } catch (error) {
    sessionStorage.removeItem(STORAGE_KEY);
    signedIn(false);
    explain(error);
  }
}

document.addEventListener('DOMContentLoaded', start);
