/**
 * The ceiling the read scenarios are measured against: a bare Express app in its own process,
 * `express()`, `express.json()` and one POST route answering `{"count":0,"list":[]}`. Whatever a
 * list request costs beyond this is the service's own work. Prints its URL once listening.
 */
import express from 'express';

const app = express();
app.use(express.json());
app.post('/noop', (_req, res) => {
  res.json({ count: 0, list: [] });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`http://127.0.0.1:${address.port}/noop\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
