// What the hosted-checkout tests expect of every page and status document.

export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
export const STATUS_KEYS = ['attempt', 'detail', 'expires_at', 'final', 'headline', 'return_url', 'seconds_left', 'status'];
