import { originOf, type Config } from '../../config.js';
import { settlementPolicy } from '../settlements/index.js';
import { intentCreator, type IntentContext } from './payment-intents.service.js';

export function checkoutUrlFor(config: Config) {
  const live = originOf(config.liveUrl);
  const sandbox = originOf(config.sandboxUrl);
  return (environment: 'live' | 'test', intentId: string) => `${environment === 'live' ? live : sandbox}/checkout/${intentId}`;
}

export function intentContext(deps: Pick<IntentContext, 'db' | 'clock' | 'rates'> & { config: Config }): IntentContext {
  const ctx: IntentContext = {
    db: deps.db,
    clock: deps.clock,
    rates: deps.rates,
    checkoutUrl: checkoutUrlFor(deps.config),
    settlementPolicy: settlementPolicy(deps.config),
  };
  ctx.insertCreated = intentCreator(ctx);
  return ctx;
}
