/** What the passing of time does on its own: unpaid checkout sessions expire at `expires_at`. */

import { allPartitions } from './merchants.js';
import type { EngineState } from './state.js';

/** Expires the unpaid checkout sessions whose `expires_at` is at or before the mock's now. */
export function expireDueSessions(state: EngineState): void {
  const now = state.clock.now();
  for (const partition of allPartitions(state.merchants)) {
    for (const s of partition.sessions.values()) {
      if ((s.data.status === 'created' || s.data.status === 'pending_payment') && Date.parse(s.data.expires_at) <= now)
        s.data.status = 'expired';
    }
  }
}
