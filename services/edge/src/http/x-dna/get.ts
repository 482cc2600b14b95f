import { accounts } from '@gw/proto';
import { listRoute } from '../x-users/list.js';

/** GET /x-dna: every descendant of the caller. */
export const getDna = listRoute('/x-dna', accounts.Reach.REACH_DESCENDANTS, 'Every descendant of the caller');
