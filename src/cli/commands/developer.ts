// The merchant developer's commands, `cowrie listen` and `cowrie trigger`: they talk to a running server
// through the SDK, never to the database.
import type { Command } from 'commander';
import { listen, trigger } from '../listen.js';
import { commaList, type CliSession, type JsonOpt } from './session.js';

interface ClientOpts extends JsonOpt {
  apiKey?: string;
  baseUrl?: string;
}

function clientOptions(cmd: Command): Command {
  return cmd
    .option('--api-key <key>', 'a secret or restricted API key; COWRIE_API_KEY')
    .option('--base-url <url>', 'the API base URL (default COWRIE_SANDBOX_URL or http://localhost:4001/v1)');
}

export function registerDeveloperCommands(program: Command, cli: CliSession): void {
  clientOptions(
    program
      .command('listen')
      .description('Forward every new event of the feed to a local URL, signed like a webhook delivery, until Ctrl-C')
      .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/webhooks')
      .option('--events <types>', 'only these event types, comma-separated', commaList)
      .option('--secret <secret>', 'sign with this cwk_whsec_ secret instead of a new one')
      .option('--json', 'one JSON object per line'),
  ).action((opts: ClientOpts & { forwardTo: string; events?: string[]; secret?: string }) => runListen(cli, opts));
  clientOptions(
    program
      .command('trigger')
      .description('Send a sample event of TYPE to your subscribed sandbox webhook endpoints (sandbox keys only)')
      .argument('[type]', 'an event type', 'payment_intent.paid')
      .option('--json', 'machine-readable output'),
  ).action(async (type: string, opts: ClientOpts) => {
    await trigger(type, opts, cli.io);
  });
}

/** Listens until Ctrl-C (SIGINT or SIGTERM) or the caller's signal stops it. */
async function runListen(cli: CliSession, opts: ClientOpts & { forwardTo: string; events?: string[]; secret?: string }): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  cli.io.signal?.addEventListener('abort', onSignal, { once: true });
  try {
    cli.exitCode = await listen(opts, cli.io, stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
