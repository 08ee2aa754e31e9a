'use strict';
// The projections console: polls GET /internal/read-models with the operator token, which is kept
// in this tab's sessionStorage and sent as a header (never in a URL, where logs and history keep it).
(function () {
  const TOKEN_KEY = 'directoryToken';
  const POLL_MS = 2000;
  const JOB_POLL_MS = 500;
  // Relative to the page (/console/): the service may be mounted under a prefix.
  const api = (path) => new URL('../internal/' + path, window.location.href).href;

  const signIn = document.getElementById('sign-in');
  const signOut = document.getElementById('sign-out');
  const consoleMain = document.getElementById('console');
  const rows = document.querySelector('#read-models tbody');
  const summary = document.getElementById('summary');
  const message = document.getElementById('message');
  const job = document.getElementById('job');
  const parkedRows = document.querySelector('#parked-events tbody');
  const noParked = document.getElementById('no-parked');
  const operatorInput = document.getElementById('operator-name');
  let pollTimer;
  let followedJob;

  const token = () => sessionStorage.getItem(TOKEN_KEY);

  async function call(method, path, body, extraHeaders) {
    // The token typed in is either an operator's own (OPERATOR_TOKENS, a bearer token, which
    // names them in what they decide) or the directory's: sent both ways, the service takes
    // whichever it is.
    const headers = {
      ...extraHeaders,
      'X-Directory-Token': token() || '',
      Authorization: `Bearer ${token() || ''}`,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(api(path), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
    if (response.status === 401) {
      showSignIn('The token was refused: sign in again.');
      throw new Error('unauthenticated');
    }
    const answer = await response.json().catch(() => undefined);
    return { status: response.status, body: answer };
  }

  function showSignIn(text) {
    sessionStorage.removeItem(TOKEN_KEY);
    clearTimeout(pollTimer);
    consoleMain.hidden = true;
    signOut.hidden = true;
    signIn.hidden = false;
    document.getElementById('sign-in-message').textContent = text || '';
  }

  function showConsole() {
    signIn.hidden = true;
    consoleMain.hidden = false;
    signOut.hidden = false;
    poll();
  }

  function cell(row, text, className) {
    const td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }

  function render(status) {
    summary.textContent =
      'Generation ' + status.generation + ' served; log head ' + (status.head ?? '–') + '; as of ' + status.at;
    const fresh = document.createDocumentFragment();
    for (const model of status.readModels) {
      const tr = document.createElement('tr');
      tr.dataset.readModel = model.name;
      tr.dataset.generation = String(model.generation);
      tr.dataset.state = model.state;
      cell(tr, model.name);
      cell(tr, String(model.generation), 'number');
      cell(tr, model.state).dataset.col = 'state';
      cell(tr, model.position ?? '–', 'number').dataset.col = 'position';
      cell(tr, model.leaderPosition ?? '–', 'number').dataset.col = 'leaderPosition';
      cell(tr, String(model.lag.events), 'number').dataset.col = 'lagEvents';
      cell(tr, model.lag.seconds.toFixed(1), 'number').dataset.col = 'lagSeconds';
      cell(tr, model.eventsPerSecond.toFixed(2), 'number').dataset.col = 'eventsPerSecond';
      const error = model.lastError;
      cell(tr, error ? error.message + ' at ' + (error.position ?? '–') + ', ' + error.at : '', 'error').dataset.col =
        'lastError';
      cell(tr, String(model.parked.length), 'number').dataset.col = 'parked';
      const action = cell(tr, '');
      if (model.state !== 'rebuilding') {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'Rebuild';
        button.dataset.rebuild = model.name;
        button.addEventListener('click', () => rebuild({ readModel: model.name }));
        action.appendChild(button);
      }
      fresh.appendChild(tr);
    }
    rows.replaceChildren(fresh);
    renderParked(status.readModels);
  }

  // Every parked event on one list, each with the two decisions an operator can take on it: the
  // count on a read model's row says that something waits, this list says what and lets it end.
  function renderParked(readModels) {
    const fresh = document.createDocumentFragment();
    let count = 0;
    for (const model of readModels) {
      for (const event of model.parked) {
        count += 1;
        const tr = document.createElement('tr');
        tr.dataset.parked = model.name + '@' + event.position;
        tr.dataset.readModel = model.name;
        tr.dataset.position = event.position;
        cell(tr, model.name).dataset.col = 'readModel';
        cell(tr, event.streamId).dataset.col = 'stream';
        cell(tr, event.position, 'number').dataset.col = 'position';
        cell(tr, event.type).dataset.col = 'type';
        cell(tr, event.error, 'error').dataset.col = 'error';
        cell(tr, String(event.failures), 'number').dataset.col = 'failures';
        const actions = cell(tr, '');
        for (const decision of ['retry', 'skip']) {
          const button = document.createElement('button');
          button.type = 'button';
          button.textContent = decision === 'retry' ? 'Retry' : 'Skip';
          button.dataset[decision] = model.name + '@' + event.position;
          button.addEventListener('click', () => decide(model.name, event.position, decision, tr));
          actions.appendChild(button);
        }
        fresh.appendChild(tr);
      }
    }
    parkedRows.replaceChildren(fresh);
    noParked.hidden = count > 0;
  }

  async function decide(readModel, position, decision, tr) {
    message.textContent = '';
    for (const button of tr.querySelectorAll('button')) button.disabled = true;
    // The decision is recorded with the operator credential; a name given here is recorded beside it.
    const operator = operatorInput.value.trim();
    const headers = operator === '' ? {} : { 'X-Operator': operator };
    const path =
      'read-models/' + encodeURIComponent(readModel) + '/parked/' + encodeURIComponent(position) + '/' + decision;
    try {
      const answer = await call('POST', path, undefined, headers);
      if (answer.status !== 200) {
        message.textContent =
          (answer.body && answer.body.detail) || 'The ' + decision + ' was refused: ' + answer.status;
      } else if (answer.body.outcome === 'failed') {
        message.textContent =
          'The event at ' + position + ' failed again in ' + readModel + ': ' + answer.body.parked.error;
      }
    } catch (error) {
      if (error.message === 'unauthenticated') return;
      message.textContent = 'The ' + decision + ' was not sent: ' + error.message;
    }
    poll();
  }

  async function poll() {
    clearTimeout(pollTimer);
    try {
      const answer = await call('GET', 'read-models');
      if (answer.status === 200) {
        render(answer.body);
        message.textContent = '';
      } else {
        message.textContent = 'The service answered ' + answer.status + '.';
      }
    } catch (error) {
      if (error.message === 'unauthenticated') return;
      message.textContent = 'The service did not answer: ' + error.message;
    }
    pollTimer = setTimeout(poll, POLL_MS);
  }

  function showJob(state) {
    job.hidden = false;
    job.dataset.phase = state.phase;
    const set = (key, text) => (job.querySelector('[data-job="' + key + '"]').textContent = text);
    set('jobId', state.jobId);
    set('readModels', state.readModels.join(', '));
    set('phase', state.phase);
    set('progress', state.progress.position + ' / ' + state.progress.head);
    set('outcome', state.outcome ? state.outcome + (state.error ? ': ' + state.error : '') : 'running');
  }

  async function rebuild(body) {
    message.textContent = '';
    try {
      const answer = await call('POST', 'read-models/rebuild', body);
      if (answer.status !== 202) {
        message.textContent = (answer.body && answer.body.detail) || 'The rebuild was refused: ' + answer.status;
        return;
      }
      followedJob = answer.body.jobId;
      followJob(followedJob);
    } catch (error) {
      if (error.message !== 'unauthenticated') message.textContent = 'The rebuild was not started: ' + error.message;
    }
  }

  async function followJob(jobId) {
    if (jobId !== followedJob) return;
    try {
      const answer = await call('GET', 'read-models/rebuild/' + encodeURIComponent(jobId));
      if (answer.status !== 200) {
        message.textContent = 'The job is not known: ' + answer.status;
        return;
      }
      showJob(answer.body);
      if (answer.body.outcome !== null) {
        poll();
        return;
      }
    } catch (error) {
      if (error.message === 'unauthenticated') return;
    }
    setTimeout(() => followJob(jobId), JOB_POLL_MS);
  }

  signIn.addEventListener('submit', (event) => {
    event.preventDefault();
    const input = document.getElementById('token');
    sessionStorage.setItem(TOKEN_KEY, input.value);
    input.value = '';
    showConsole();
  });
  signOut.addEventListener('click', () => showSignIn(''));
  document.getElementById('rebuild-all').addEventListener('click', () => rebuild({}));

  if (token()) showConsole();
  else showSignIn('');
})();
