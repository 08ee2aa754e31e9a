import express from 'express';
import type { RequestHandler } from 'express';
import { packageFile } from '../config/package-file';

/**
 * GET /audit: the audit console, plain files of the folder `audit-console` beside package.json
 * (no build step, no CDN). Public like /docs: the page holds nothing; every read it makes is a
 * call of the audit API with the auditor's own credential, sent as a header. The policy allows
 * this origin only, and no inline script, so recorded data shown on the page cannot run.
 */
const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function auditConsole(): RequestHandler {
  const index = packageFile('audit-console/index.html');
  if (!index) throw new Error('the audit console (audit-console/index.html beside package.json) is missing');
  const files = express.static(index.replace(/index\.html$/, ''), { index: 'index.html', redirect: true, maxAge: 0 });
  return (req, res, next) => {
    res.setHeader('Content-Security-Policy', POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
    files(req, res, next);
  };
}
