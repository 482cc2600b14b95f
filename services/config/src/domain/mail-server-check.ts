import { mailServerPort, refuseUpstreamHost, refuseResolvedAddresses } from '@gw/kit';
import { invalid } from './invalid.js';
import type { ConfigDeps } from './ports/deps.js';

export const MAIL_SERVER_KEYS = ['EMAIL_SMTP', 'EMAIL_PORT', 'EMAIL_TLS'] as const;

/**
 * EMAIL_SMTP and EMAIL_PORT under the Provider address rule (docs/decisions.md §7), checked on
 * the values as they will be stored: metadata and link-local always refused, the gateway's own
 * endpoints refused, loopback and private ranges only in root's configuration; a name also by
 * every address it resolves to now. The mailer checks again when it connects.
 */
export async function checkMailServer(
  deps: Pick<ConfigDeps, 'self' | 'tenantPrivate' | 'resolver'>,
  values: Readonly<Record<string, string>>,
  ownerIsRoot: boolean,
): Promise<void> {
  const host = values.EMAIL_SMTP;
  if (host === undefined || host === '') {
    return;
  }
  const port = mailServerPort(values.EMAIL_PORT, values.EMAIL_TLS === 'true');
  const policy = { rootPool: ownerIsRoot, self: deps.self, tenantPrivate: deps.tenantPrivate };
  const refused = refuseUpstreamHost(host, port, policy);
  if (refused) {
    invalid('EMAIL_SMTP', refused);
  }
  const addresses = await deps.resolver.resolve(host.replace(/^\[|\]$/g, ''));
  const refusedAddress = addresses && refuseResolvedAddresses(addresses, port, policy);
  if (refusedAddress) {
    invalid('EMAIL_SMTP', refusedAddress);
  }
}
