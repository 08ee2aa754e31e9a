import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { PROBLEM_EXPLANATIONS, PROBLEM_TYPES, type ProblemKey } from '../problem';
import { routeGroup } from '../route-declaration';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** Each problem `type` is a URL of this service: dereferenced, it explains itself (RFC 9457 §3.1.1). */
const PAGES = new Map(
  (Object.keys(PROBLEM_TYPES) as ProblemKey[]).map((key) => {
    const { type, title, status } = PROBLEM_TYPES[key];
    const explanation = escapeHtml(PROBLEM_EXPLANATIONS[key]).replace(/`([^`]+)`/g, '<code>$1</code>');
    const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><h1>${escapeHtml(title)}</h1>
<p>Problem type <code>${type}</code>, HTTP status ${status}.</p>
<p>${explanation}</p>
<p>Every error of this service is an RFC 9457 problem (<code>application/problem+json</code>); see <a href="/docs">/docs</a>.</p>
</body></html>
`;
    return [type.slice('/problems/'.length), page] as const;
  }),
);

export const PROBLEM_ROUTES = routeGroup<undefined>({ tag: 'health', access: 'public' }, (problems) => [
  problems.get('/problems/{type}', 'getProblemType', {
    summary: 'What a problem `type` means and what to do about it',
    request: {
      params: z.object({
        type: z
          .string()
          .meta({ description: 'The last segment of the type, e.g. `validation`', example: 'validation' }),
      }),
    },
    answers: { 200: { description: 'A short HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    errors: [404],
    handle:
      () =>
      ({ params, res }) => {
        const page = PAGES.get(params.type);
        if (!page) throw notFound(`no problem type /problems/${params.type}`);
        res.setHeader('Cache-Control', 'public, max-age=86400');
        res.type('html').send(page);
      },
  }),
]);
