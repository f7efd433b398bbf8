// The home page's volume: paid payments of the last 30 days per payment currency, each currency's total as
// money and a bar per day drawn by the server as SVG (no script), with the figures in words for screen
// readers and a table of the days behind a disclosure.
import { formatMoney } from '../../../shared/display.js';
import { Decimal } from '../../../shared/money.js';
import type { Volume } from '../payment-search.service.js';
import { ZoneName } from './layout.js';

const W = 600;
const H = 120;

function Bars({ perDay, label }: { perDay: string[]; label: string }) {
  const max = perDay.reduce((m, x) => Decimal.max(m, new Decimal(x)), new Decimal(0));
  const step = W / perDay.length;
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H + 2}`} role="img" aria-label={label} preserveAspectRatio="none">
      <title>{label}</title>
      <line x1={0} y1={H + 1} x2={W} y2={H + 1} class="axis" />
      {perDay.map((x, i) => {
        const h = max.isZero() ? 0 : Math.max(new Decimal(x).isZero() ? 0 : 2, new Decimal(x).div(max).mul(H).toNumber());
        return <rect x={i * step + 1} y={H - h} width={step - 2} height={h} class="bar" />;
      })}
    </svg>
  );
}

export function VolumeSection({ volume }: { volume: Volume }) {
  const first = volume.days[0]!;
  const last = volume.days.at(-1)!;
  return (
    <section aria-labelledby="h-volume">
      <h2 id="h-volume">Paid in the last 30 days</h2>
      <p class="hint">
        {first} to {last}, days in <ZoneName />.
      </p>
      {volume.currencies.length === 0 ? (
        <p>No paid payments in the last 30 days.</p>
      ) : (
        <div class="volume">
          {volume.currencies.map((c) => (
            <div class="card" id={`volume-${c.currency}`}>
              <h3>
                <span class="total">{formatMoney(c.total, c.currency)}</span>
              </h3>
              <p class="hint">
                {c.count} paid payment{c.count === 1 ? '' : 's'} in {c.currency}
              </p>
              <Bars
                perDay={c.perDay}
                label={`${c.currency} paid per day from ${first} to ${last}; in all ${formatMoney(c.total, c.currency)}`}
              />
              <details>
                <summary>Each day</summary>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col">Paid</th>
                    </tr>
                  </thead>
                  <tbody>
                    {c.perDay.map((x, i) => (
                      <tr>
                        <td>{volume.days[i]}</td>
                        <td>{formatMoney(x, c.currency)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
