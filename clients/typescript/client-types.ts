import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';

/**
 * The media types the client reads: every one the document names but text/csv, which the audit
 * lists answer only when asked with `format=csv` (a download, fetched as text): their `data` stays
 * the JSON answer's type.
 */
export type ClientMedia =
  | 'application/json'
  | 'application/problem+json'
  | 'application/octet-stream'
  | 'multipart/form-data'
  | 'text/html'
  | 'text/plain';
export type ResourcesClient = Client<paths, ClientMedia>;
