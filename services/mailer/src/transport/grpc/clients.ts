import { AppError, ErrorCode, mailSealAad, type PromiseClient, type SecretBox } from '@gw/kit';
import type { accounts, config } from '@gw/proto';
import type { Contacts, OwnerSettings, Sealed } from '../../domain/ports/deps.js';

/** Recipients from accounts; an account that is gone is `undefined` (its mail is never sent). */
export function accountContacts(client: PromiseClient<accounts.AccountsServiceClient>): Contacts {
  return {
    async contact(accountId) {
      try {
        return await client.getAccountContact({ accountId });
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.NotFound) {
          return undefined;
        }
        throw error;
      }
    },
  };
}

/** The owner's EMAIL_* and SVC_MAIL from config, EMAIL_PASS revealed (internal reader). */
export function ownerSettings(client: PromiseClient<config.ConfigServiceClient>): OwnerSettings {
  return {
    async values(ownerId) {
      return (await client.getOwnerConfig({ ownerId, revealSecrets: true })).values;
    },
  };
}

export function sealedParts(box: SecretBox): Sealed {
  return { open: (sealed, jobId) => box.open(sealed, mailSealAad(jobId)) };
}
