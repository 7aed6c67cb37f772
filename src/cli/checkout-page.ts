/**
 * The hosted pages of `payments-sdk mock`: a checkout session's page at its `checkout_url`
 * (`/checkout/<reference>`, with Pay, Fail with a chosen `failure_reason`, and Cancel) and a payment
 * link's page at its `url` (`/pay/<slug>`). They are served on their own origin, apart from the
 * API, as a real hosted page is. Pay, Fail and Cancel move the session and its payment on through
 * the testing kit's actions, and hand the resulting webhook delivery to `onDelivery`.
 */
import { formatAmount } from '../money.js';
import type { WebhookDelivery } from '../testing/delivery.js';
import { MockServiceError } from '../testing/mock-errors.js';
import type { MockService } from '../testing/mock-service.js';

/** Escapes text for HTML content and attribute values: the description and names are the merchant's. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function amountText(amount: unknown, currency: unknown): string {
  if (typeof amount !== 'number' || typeof currency !== 'string') return '';
  try {
    return formatAmount(amount, currency, 'en');
  } catch {
    return `${amount} ${currency}`;
  }
}

function page(status: number, title: string, body: string): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
.amount{font-size:2rem;font-weight:600;margin:.5rem 0}.muted{color:#666}form{display:inline}
button{font-size:1rem;padding:.6rem 1.4rem;margin:1rem .5rem 0 0;border-radius:.4rem;border:1px solid #888;cursor:pointer}
button.pay{background:#1a7f37;color:#fff;border-color:#1a7f37}.badge{font-family:monospace}</style></head>
<body>${body}<p class="muted">Mock payments service: test mode, no money moves.</p></body></html>`;
  return new Response(html, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      'Cache-Control': 'no-store',
    },
  });
}

/** Reasons the Fail form suggests; any other text can be typed. */
const FAILURE_REASONS = ['insufficient_funds', 'declined', 'expired', 'cancelled_by_payer', 'timeout', 'invalid_pin'];
/** The longest `failure_reason` the page accepts. */
const MAX_REASON_LENGTH = 100;

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location } });
}

/** Answers one request to the hosted pages. `onDelivery` receives each webhook an action produced. */
export async function answerHostedPage(
  mock: MockService,
  request: Request,
  onDelivery: (delivery: WebhookDelivery<{ id: string; type: string; data: unknown }>) => void,
): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const checkout = /^\/checkout\/([^/]+)(?:\/(pay|fail|cancel))?\/?$/.exec(url.pathname);
  const link = /^\/pay\/([^/]+)\/?$/.exec(url.pathname);
  try {
    if (checkout) {
      const reference = decodeURIComponent(checkout[1] as string);
      const action = checkout[2];
      if (!action && method === 'GET') return sessionPage(mock, reference, url.searchParams.get('failed') ?? undefined);
      if (action && method === 'POST') {
        const session = mock.getCheckoutSession(reference);
        if (!session) return page(404, 'Not found', '<h1>Checkout session not found</h1>');
        if (action === 'pay') {
          onDelivery(await mock.paySession(reference));
          return redirect(session.success_url ?? url.pathname.replace(/\/pay\/?$/, ''));
        }
        if (action === 'fail') {
          // The payment fails as the processor would report it: payment.failed with this reason;
          // the session stays open, so the customer can try again.
          const form = await request.formData();
          const raw = form.get('failure_reason');
          const reason = typeof raw === 'string' ? raw.trim() : '';
          if (reason === '' || reason.length > MAX_REASON_LENGTH) {
            return page(422, 'Bad reason', `<h1>Give a failure_reason of 1 to ${MAX_REASON_LENGTH} characters</h1>`);
          }
          onDelivery(await mock.paySession(reference, { outcome: 'failed', failure_reason: reason }));
          return redirect(`${url.pathname.replace(/\/fail\/?$/, '')}?failed=${encodeURIComponent(reason)}`);
        }
        await mock.cancelSession(reference);
        return redirect(session.cancel_url ?? url.pathname.replace(/\/cancel\/?$/, ''));
      }
    }
    if (link) {
      const id = decodeURIComponent(link[1] as string);
      if (method === 'GET') return linkPage(mock, id, url);
      if (method === 'POST') {
        const form = await request.formData();
        const raw = form.get('amount');
        const amount = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : undefined;
        onDelivery(await mock.payPaymentLink(id, amount === undefined ? {} : { amount }));
        return linkPage(mock, id, url, 'Payment succeeded. Thank you!');
      }
    }
  } catch (error) {
    // A session already paid, a link deactivated: the customer sees the reason, as on a real page.
    if (error instanceof MockServiceError) return page(409, 'Cannot pay', `<h1>Cannot do that</h1><p>${escapeHtml(error.message)}</p>`);
    throw error;
  }
  return page(404, 'Not found', '<h1>Page not found</h1>');
}

function sessionPage(mock: MockService, reference: string, failed?: string): Response {
  const session = mock.getCheckoutSession(reference);
  if (!session) return page(404, 'Not found', '<h1>Checkout session not found</h1>');
  const open = session.status === 'created' || session.status === 'pending_payment';
  const base = `/checkout/${encodeURIComponent(reference)}`;
  const actions = open
    ? `<form method="post" action="${base}/pay"><button class="pay" type="submit">Pay</button></form>
<form method="post" action="${base}/cancel"><button type="submit">Cancel</button></form>
<form method="post" action="${base}/fail" class="fail"><p><label>failure_reason <input name="failure_reason" list="reasons" value="insufficient_funds" required maxlength="${MAX_REASON_LENGTH}"></label>
<datalist id="reasons">${FAILURE_REASONS.map((r) => `<option value="${r}">`).join('')}</datalist>
<button type="submit">Fail</button></p></form>`
    : `<p>This checkout session is <strong id="status">${escapeHtml(session.status)}</strong>.</p>`;
  return page(
    200,
    `Pay ${amountText(session.amount, session.currency)}`,
    `<h1>${escapeHtml(session.description ?? 'Checkout')}</h1>
<div class="amount">${escapeHtml(amountText(session.amount, session.currency))}</div>
<p class="muted">Reference <span class="badge">${escapeHtml(session.reference)}</span> · status <span class="badge" id="session-status">${escapeHtml(session.status)}</span></p>
${failed ? `<p id="notice"><strong>Payment failed: <span class="badge" id="failure-reason">${escapeHtml(failed)}</span></strong></p>` : ''}
${actions}`,
  );
}

function linkPage(mock: MockService, id: string, url: URL, notice?: string): Response {
  const found = mock.getPaymentLink(id);
  if (!found) return page(404, 'Not found', '<h1>Payment link not found</h1>');
  const fixed = typeof found.amount === 'number';
  const input = fixed
    ? ''
    : `<label>Amount (minor units) <input name="amount" type="number" min="${escapeHtml(found.minimum_amount ?? 1)}" required></label>`;
  return page(
    200,
    String(found.title ?? 'Payment link'),
    `<h1>${escapeHtml(found.title ?? 'Payment link')}</h1>
${fixed ? `<div class="amount">${escapeHtml(amountText(found.amount, found.currency))}</div>` : ''}
${notice ? `<p id="notice"><strong>${escapeHtml(notice)}</strong></p>` : ''}
<form method="post" action="${escapeHtml(url.pathname)}">${input}<button class="pay" type="submit">Pay</button></form>`,
  );
}
