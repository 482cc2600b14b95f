/** Mail to the owner about its pool. */
export interface OwnerAlerts {
  /** An upstream refused a key's credentials (401/403): the key sleeps and the owner should look. */
  keyAuthFailed(ownerId: string, keyId: string): Promise<void>;
}
