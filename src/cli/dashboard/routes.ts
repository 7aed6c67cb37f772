/**
 * The dashboard's HTTP face on the mock's API origin: the page at `/`, its script and style sheet,
 * the event stream, and the actions the page's buttons call (which a test can call too):
 *
 * - `POST /_mock/dashboard/actions/succeed` `{ "uuid" }`: a pending payment succeeds;
 * - `POST /_mock/dashboard/actions/fail` `{ "uuid", "failure_reason"? }`: it fails;
 * - `POST /_mock/dashboard/actions/resend` `{ "id" }`: a delivery is posted again, same event id;
 * - `POST /_mock/dashboard/actions/drop` `{ "count" }`: the next `count` deliveries are lost;
 * - `POST /_mock/dashboard/actions/advance` `{}`: the clock moves to the next attempt due.
 *
 * Every route answers only under a loopback `Host` (a page of another site cannot reach it through
 * DNS rebinding). An action is a `POST` with a JSON body, from the page's own origin: a request
 * whose `Origin` is another origin, or whose `Sec-Fetch-Site` is not `same-origin`, is refused.
 */
import type { WebhookDelivery } from '../../testing/delivery.js';
import { isLoopback } from '../../testing/delivery.js';
import { MockServiceError } from '../../testing/mock-errors.js';
import type { MockService } from '../../testing/mock-service.js';
import { dashboardScript } from './client.js';
import type { DashboardFeed } from './feed.js';
import { DASHBOARD_CSS, dashboardHtml, type PageFacts } from './page.js';

/** Where the dashboard's own routes live, beside the mock's `/api/v1`. */
export const DASHBOARD_PATH = '/_mock/dashboard';

/** The longest `failure_reason` the fail action accepts, as on the hosted checkout page. */
const MAX_REASON_LENGTH = 100;
/** The most deliveries one drop action may lose. */
const MAX_DROP = 1000;

/** The page's CSP: its own script and style sheet only, its own origin for the event stream and the actions. */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The script as served: the function's own source, run at once. */
const SCRIPT = `'use strict';\n(${dashboardScript.toString()})();\n`;

/** What the routes need from the running mock. */
export interface DashboardContext {
  mock: MockService;
  feed: DashboardFeed;
  facts: PageFacts;
  /** Receives each webhook delivery an action produced (the command prints it). */
  onDelivery: (delivery: WebhookDelivery<{ id: string; type: string; data: unknown }>) => void;
}

/** Answers a dashboard request; `undefined` for any other request (the mock's API answers those). */
export async function answerDashboard(context: DashboardContext, request: Request): Promise<Response | undefined> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path !== '/' && path !== '/favicon.ico' && path !== DASHBOARD_PATH && !path.startsWith(`${DASHBOARD_PATH}/`)) return undefined;
  const host = request.headers.get('host');
  if (host !== null && !isLoopback(hostnameOf(host)))
    return problem(421, 'The dashboard answers only on a loopback address such as 127.0.0.1.');
  const method = request.method.toUpperCase();
  if (path.startsWith(`${DASHBOARD_PATH}/actions/`)) return answerAction(context, request, path.slice(`${DASHBOARD_PATH}/actions/`.length));
  if (method !== 'GET' && method !== 'HEAD') return problem(405, 'Use GET.', { Allow: 'GET, HEAD' });
  if (path === '/') return asset(dashboardHtml(context.facts), 'text/html; charset=utf-8', { 'Content-Security-Policy': PAGE_CSP });
  if (path === '/favicon.ico') return new Response(null, { status: 204, headers: SECURITY_HEADERS });
  if (path === `${DASHBOARD_PATH}/app.js`) return asset(SCRIPT, 'text/javascript; charset=utf-8');
  if (path === `${DASHBOARD_PATH}/app.css`) return asset(DASHBOARD_CSS, 'text/css; charset=utf-8');
  if (path === `${DASHBOARD_PATH}/events`) return context.feed.stream();
  return problem(404, `No dashboard route ${path}.`);
}

function asset(text: string, type: string, extra: Record<string, string> = {}): Response {
  return new Response(text, { headers: { 'Content-Type': type, ...SECURITY_HEADERS, ...extra } });
}

function problem(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ message }, { status, headers: { ...SECURITY_HEADERS, ...headers } });
}

/** The host name of a `Host` header (`127.0.0.1:4010`, `[::1]:4010`, `localhost`). */
function hostnameOf(host: string): string {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return '';
  }
}

/** Why a request may not run an action, or `undefined` when it may. */
function refusal(request: Request): Response | undefined {
  if (request.method.toUpperCase() !== 'POST') return problem(405, 'Actions take POST.', { Allow: 'POST' });
  const origin = request.headers.get('origin');
  const host = request.headers.get('host');
  if (origin !== null && (host === null || origin !== `http://${host}`))
    return problem(403, 'Cross-origin request refused: actions are taken from the dashboard page only.');
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return problem(403, `Cross-site request refused (Sec-Fetch-Site: ${site}).`);
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return problem(415, 'Send the action as JSON (Content-Type: application/json).');
  return undefined;
}

async function answerAction(context: DashboardContext, request: Request, name: string): Promise<Response> {
  const refused = refusal(request);
  if (refused) return refused;
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return problem(400, 'The body is not JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return problem(400, 'The body must be a JSON object.');
  const input = body as Record<string, unknown>;
  const { mock, feed, onDelivery } = context;
  if ((name === 'resend' || name === 'drop' || name === 'advance') && context.facts.forwardTo === null)
    return problem(409, 'No webhook endpoint: start the mock with --forward-to URL to deliver, resend, drop or retry.');
  try {
    switch (name) {
      case 'succeed':
      case 'fail': {
        const uuid = input.uuid;
        if (typeof uuid !== 'string' || uuid === '') return problem(422, 'uuid must be the uuid of a pending payment.');
        const reason = input.failure_reason;
        if (reason !== undefined && (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON_LENGTH))
          return problem(422, `failure_reason must be a text of 1 to ${MAX_REASON_LENGTH} characters.`);
        const delivery = name === 'succeed' ? await mock.settlePayment(uuid) : await mock.failPayment(uuid, reason?.trim());
        onDelivery(delivery);
        return done(feed, { message: `${delivery.event.type} ${delivery.event.id}`, event: delivery.event.id });
      }
      case 'resend': {
        const id = input.id;
        if (typeof id !== 'string' || id === '') return problem(422, 'id must be the event id of a delivery.');
        const attempt = await mock.resendDelivery(id);
        const outcome = attempt.status === null ? (attempt.error ?? 'no answer') : String(attempt.status);
        return done(feed, {
          message: `Resent ${id}: ${outcome}`,
          attempt: { number: attempt.number, status: attempt.status, ok: attempt.ok },
        });
      }
      case 'drop': {
        const count = input.count;
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_DROP)
          return problem(422, `count must be an integer from 1 to ${MAX_DROP}.`);
        mock.dropNextDeliveries(count);
        return done(feed, { message: `The next ${mock.droppingNext} deliveries will be lost.`, droppingNext: mock.droppingNext });
      }
      case 'advance': {
        const now = mock.advanceToNextAttempt();
        if (now === null) return done(feed, { message: 'No delivery attempt is due.', now: null });
        return done(feed, { message: `Clock moved to ${now.toISOString()}.`, now: now.toISOString() });
      }
      default:
        return problem(404, `No action ${JSON.stringify(name)} (succeed, fail, resend, drop, advance).`);
    }
  } catch (error) {
    // Not pending, unknown, no --forward-to: the mock's own sentence says why.
    if (error instanceof MockServiceError) return problem(409, error.message);
    throw error;
  }
}

function done(feed: DashboardFeed, answer: Record<string, unknown>): Response {
  feed.changed();
  return Response.json(answer, { headers: SECURITY_HEADERS });
}
