/**
 * Which account created each stored upstream object (a response, a conversation) through the
 * gateway: the owner's upstream keys are shared, so an id is usable only by the account that made it.
 */
export interface ObjectOwners {
  /** The account that created the object under this owner's pool, or undefined when none did. */
  ownerOf(ownerId: string, objectId: string): Promise<string | undefined>;
  /** Records the objects an answer created, for as long as upstream keeps them. */
  record(ownerId: string, objectIds: readonly string[], accountId: string): Promise<void>;
}
