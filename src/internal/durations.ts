/** Milliseconds in an hour. */
export const HOUR_MS = 3_600_000;

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/**
 * The longest delay `setTimeout` honours, 2^31 - 1 ms (about 24.8 days): a longer one fires at once.
 * See https://developer.mozilla.org/en-US/docs/Web/API/Window/setTimeout#maximum_delay_value
 */
export const MAX_TIMER_MS = 2_147_483_647;
