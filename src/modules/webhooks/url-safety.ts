// Where a webhook may be sent. Live endpoints, and sandbox endpoints unless COWRIE_ALLOW_PRIVATE_WEBHOOKS=1,
// must be https URLs whose host resolves to public addresses only. The check runs at creation and again at
// every delivery, inside the connection's own DNS lookup, so the address checked is the address connected to
// and DNS rebinding cannot reach 127.0.0.1, 10.0.0.0/8, 169.254.169.254, ::1 or any other private or reserved
// range. Ranges come from ipaddr.js: only its `unicast` range (everything not private, loopback, link-local,
// reserved, multicast, CGNAT, 6to4, Teredo, NAT64 ...) is public.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { promisify } from 'node:util';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../shared/errors.js';
import type { Environment } from '../../shared/scope.js';

/** `public`: https and public addresses only. `any`: a sandbox endpoint with private addresses allowed. */
export type UrlPolicy = 'public' | 'any';

export function urlPolicy(environment: Environment, allowPrivate: boolean): UrlPolicy {
  return environment === 'test' && allowPrivate ? 'any' : 'public';
}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** The URL's host without IPv6 brackets. */
export function hostOfUrl(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export const MAX_URL_LENGTH = 2048;

/** Why the URL may not be used under the policy (without DNS), or null. */
export function staticUrlProblem(raw: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (policy === 'public') {
    if (url.protocol !== 'https:')
      return 'must be an https URL (for a local receiver in the sandbox, the operator can set COWRIE_ALLOW_PRIVATE_WEBHOOKS=1)';
    const host = hostOfUrl(url);
    if (ipaddr.isValid(host) && !isPublicAddress(host))
      return `must not point at a private or reserved address (${host}; for a local receiver in the sandbox, the operator can set COWRIE_ALLOW_PRIVATE_WEBHOOKS=1)`;
  }
  return null;
}

export type Resolver = (host: string) => Promise<string[]>;

const lookupAll = promisify(dnsLookup);

export const systemResolver: Resolver = async (host) => {
  const addresses = (await lookupAll(host, { all: true })) as unknown as LookupAddress[];
  return addresses.map((a) => a.address);
};

/** Validates an endpoint URL at creation: 400 parameter_invalid (param `url`) when it may not be used. */
export async function assertEndpointUrl(raw: string, policy: UrlPolicy, resolve: Resolver = systemResolver): Promise<void> {
  const problem = staticUrlProblem(raw, policy);
  if (problem) throw new AppError('parameter_invalid', `Invalid url: ${problem}`, { param: 'url' });
  if (policy !== 'public') return;
  const host = hostOfUrl(new URL(raw));
  if (ipaddr.isValid(host)) return;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new AppError('parameter_invalid', `Invalid url: the host ${host} does not resolve`, { param: 'url' });
  }
  if (addresses.length === 0) throw new AppError('parameter_invalid', `Invalid url: the host ${host} does not resolve`, { param: 'url' });
  const bad = addresses.find((a) => !isPublicAddress(a));
  if (bad) {
    throw new AppError('parameter_invalid', `Invalid url: the host ${host} resolves to ${bad}, which is not a public address`, {
      param: 'url',
    });
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupImpl = (
  host: string,
  options: LookupOptions & { all: true },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for net/tls.connect that refuses hosts resolving to any non-public address: the socket
 * connects only to addresses this function returned, so the check cannot be raced by a DNS change.
 */
export function publicOnlyLookup(impl: LookupImpl = dnsLookup as unknown as LookupImpl) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    impl(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const bad = addresses.find((a) => !isPublicAddress(a.address));
      if (bad || addresses.length === 0) {
        const e: NodeJS.ErrnoException = new Error(
          bad ? `${hostname} resolves to ${bad.address}, which is not a public address` : `${hostname} does not resolve`,
        );
        e.code = 'EADDRNOTPUBLIC';
        return callback(e, '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
