import { accounts } from '@gw/proto';
import { listRoute } from '../../x-users/list.js';

/** GET /x-dna/{identifier}: one descendant, or the descendants an L/G/R/T/F filter selects. */
export const getDnaOne = listRoute(
  '/x-dna/:identifier',
  accounts.Reach.REACH_DESCENDANTS,
  'One descendant, or those a filter selects',
);
