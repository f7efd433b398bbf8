// Money is a decimal string at the edges and a Decimal inside; never a JS number.
import { Decimal } from 'decimal.js';

export const DECIMAL_PATTERN = '^[0-9]+(\\.[0-9]+)?$';
const DECIMAL_RE = new RegExp(DECIMAL_PATTERN);

/** A positive decimal string (`^[0-9]+(\.[0-9]+)?$`, greater than zero), or null when it is not one. */
export function parsePositiveDecimal(text: string): Decimal | null {
  if (!DECIMAL_RE.test(text)) return null;
  const d = new Decimal(text);
  return d.gt(0) ? d : null;
}

export { Decimal };
