// Every method and path Fastify registered, read from its own route table (not from the document
// generator), so that a test can tell a route the OpenAPI document leaves out.
import type { FastifyInstance } from 'fastify';

/**
 * The API's routes as the document names them (`GET /company/{id}`, relative to `apiPrefix`).
 * printRoutes draws the table as a tree whose children extend their parent's path, four columns
 * per level. A HEAD beside a GET is its automatic twin; a HEAD of its own (tus's) is a route.
 */
export function registeredApiRoutes(app: FastifyInstance, apiPrefix: string): string[] {
  const routes: string[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│├└─\s]*)(\S+)(?: \(([A-Z, ]+)\))?$/u.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4 - 1;
    const path = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = path;
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) routes.push(`${method} ${path}`);
  }
  return routes
    .filter((route) => !route.startsWith('HEAD ') || !routes.includes(route.replace(/^HEAD/, 'GET')))
    .filter((route) => route.split(' ')[1]!.startsWith(`${apiPrefix}/`))
    .map((route) => route.replace(` ${apiPrefix}`, ' ').replace(/:(\w+)/g, '{$1}'));
}
