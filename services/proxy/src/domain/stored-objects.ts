import { AppError, ErrorCode } from '@gw/kit';
import type { ObjectOwners } from './ports/object-owners.js';
import type { ParsedRequest } from './request.js';

/** The endpoint whose requests may point at objects upstream stored for an earlier call. */
const RESPONSES_PATH = '/v1/responses';

/** The stored objects a request builds on: `previous_response_id` and `conversation` (id or `{ id }`). */
export function referencedObjects(request: ParsedRequest): string[] {
  if (request.endpoint.path !== RESPONSES_PATH || !request.json) {
    return [];
  }
  const { previous_response_id: previous, conversation } = request.json;
  const ids: unknown[] = [
    previous,
    typeof conversation === 'object' && conversation !== null
      ? (conversation as { id?: unknown }).id
      : conversation,
  ];
  return ids.filter((id): id is string => typeof id === 'string' && id !== '');
}

/**
 * An account may build only on the responses and conversations it created through the gateway;
 * any other id is 404, as upstream answers an id it does not know, before anything goes upstream.
 * The owner's keys are shared by every tenant, so an id another account made is not the caller's.
 */
export async function assertObjectsOwned(
  owners: ObjectOwners,
  ownerId: string,
  accountId: string,
  request: ParsedRequest,
): Promise<void> {
  for (const id of referencedObjects(request)) {
    const maker = await owners.ownerOf(ownerId, id).catch(() => {
      // Unknown is not the caller's: without the record the call cannot go on safely.
      throw new AppError(
        ErrorCode.Unavailable,
        'stored objects cannot be checked right now; try again shortly',
      );
    });
    if (maker !== accountId) {
      throw new AppError(ErrorCode.NotFound, `no stored object with id '${id.slice(0, 64)}' was found`);
    }
  }
}

/** The objects an answer of this endpoint created: a response's id and its conversation's. */
export function createsObjects(path: string): boolean {
  return path === RESPONSES_PATH;
}
