// A table of the wallet's pages: in a focusable region that scrolls sideways on a phone, with its caption
// and column headers, the rows given.
import type { Html } from './layout.js';

export function ScrollTable({ label, caption, columns, children }: { label: string; caption: string; columns: string[]; children: Html }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col">{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
