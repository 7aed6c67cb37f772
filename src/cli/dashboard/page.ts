/**
 * The dashboard page and its style sheet. The page holds no data and no script of its own: the
 * facts it prints (addresses, keys cut short) are escaped, and `app.js` (served as its own file, as
 * the CSP requires) fills the lists from the event stream with `textContent` only.
 */
import { escapeHtml } from '../checkout-page.js';

/** What the page header says about the running mock. */
export interface PageFacts {
  baseUrl: string;
  checkoutBaseUrl: string;
  /** The keys and secret as {@link maskSecret} shows them, never whole. */
  sandboxKey: string;
  liveKey: string | null;
  webhookSecret: string;
  /** Where deliveries are posted; `null` without `--forward-to`. */
  forwardTo: string | null;
}

/**
 * A secret cut short for display: its prefix up to the last `_` and its last 4 characters
 * (`sk_test_mock_…3f9a`), so that a person tells keys apart without seeing one whole.
 */
export function maskSecret(secret: string): string {
  const prefix = secret.slice(0, secret.lastIndexOf('_') + 1);
  const rest = secret.slice(prefix.length);
  return rest.length <= 8 ? `${prefix}…` : `${prefix}…${rest.slice(-4)}`;
}

/** The page at the mock's root. */
export function dashboardHtml(facts: PageFacts): string {
  const fact = (label: string, value: string, id: string) => `<dt>${label}</dt><dd id="${id}">${escapeHtml(value)}</dd>`;
  const section = (title: string, id: string) => `<section><h2>${title}</h2><div class="list" id="${id}"></div></section>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mock payments service</title><link rel="stylesheet" href="/_mock/dashboard/app.css">
<script src="/_mock/dashboard/app.js" defer></script></head>
<body><header><h1>Mock payments service <span id="live" class="badge">connecting…</span></h1>
<dl class="facts">${fact('Base URL', facts.baseUrl, 'base-url')}${fact('Checkout pages', facts.checkoutBaseUrl, 'checkout-url')}${fact('Sandbox key', facts.sandboxKey, 'sandbox-key')}${facts.liveKey ? fact('Live key', facts.liveKey, 'live-key') : ''}${fact('Webhook secret', facts.webhookSecret, 'webhook-secret')}${fact('Webhooks', facts.forwardTo ? `posted to ${facts.forwardTo}` : 'not forwarded (start with --forward-to URL)', 'forward-to')}</dl>
<div class="controls"><span>Clock <strong id="clock"></strong></span> <span>Next attempt due <strong id="next-attempt">none</strong></span>
<label>Drop the next <input id="drop-count" type="number" min="1" max="1000" value="1"> deliveries</label> <button type="button" id="drop">Drop</button>
<span id="dropping"></span> <button type="button" id="advance">Advance to next attempt</button></div>
<p id="notice" role="status"></p></header>
<main>${section('Requests', 'requests')}${section('Webhook deliveries', 'deliveries')}${section('Payments', 'payments')}${section('Checkout sessions', 'checkoutSessions')}${section('Payouts', 'payouts')}${section('Payment links', 'paymentLinks')}</main>
<footer class="muted">Test mode: no money moves. Click a line for its JSON.</footer></body></html>`;
}

/** The page's style sheet. */
export const DASHBOARD_CSS = `body{font-family:system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:0 1rem 2rem;color:#222}
h1{font-size:1.3rem}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}.muted{color:#666}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:0 0 .6rem}.facts dt{color:#666}.facts dd{margin:0;font-family:monospace}
.controls{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}#drop-count{width:4rem}
#notice{min-height:1.2em;font-weight:600}#notice.error{color:#b42318}
.list{border-top:1px solid #ddd;max-height:26rem;overflow:auto}
details{border-bottom:1px solid #eee;padding:.2rem 0}summary{cursor:pointer;display:flex;flex-wrap:wrap;gap:.2rem .7rem;align-items:baseline}
summary span{font-family:monospace;font-size:.9rem}pre{background:#f6f8fa;padding:.5rem;overflow:auto;font-size:.8rem;max-height:20rem}
.badge{font-size:.75rem;padding:0 .35rem;border-radius:.3rem;background:#eee;font-family:monospace}
.ok{color:#1a7f37}.err{color:#b42318}.badge.dropped{background:#fde2e1;color:#b42318}.badge.delivered{background:#dcfce7;color:#1a7f37}
.badge.replayed{background:#e0e7ff;color:#3730a3}.badge.live{background:#fef3c7}
button{font-size:.85rem;padding:.15rem .6rem;border-radius:.3rem;border:1px solid #888;background:#fff;cursor:pointer}button:disabled{opacity:.5;cursor:default}
`;
