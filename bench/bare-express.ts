/**
 * The ceiling the read scenarios are measured against: a bare Express app in its own process,
 * `express()`, `express.json()` and one POST route answering `{"count":0,"list":[]}`. Whatever a
 * list request costs beyond this is the service's own work. Prints its URL once listening.
 *
 * BARE_SERVER=app-prototypes: the same app served as the service serves its own (httpServerFor,
 * requests made with the app's prototypes), a reference line beside the ceiling: the ceiling
 * stays the plain `app.listen`, which pays Express's per-request prototype swap.
 */
import express from 'express';
import { httpServerFor } from '../src/app/http-server';

const app = express();
app.use(express.json());
app.post('/noop', (_req, res) => {
  res.json({ count: 0, list: [] });
});
const served = process.env.BARE_SERVER === 'app-prototypes' ? httpServerFor(app) : app;
const server = served.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`http://127.0.0.1:${address.port}/noop\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
