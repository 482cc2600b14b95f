import type { Database } from '@gw/kit';

/** The database or one transaction: every store module runs its statements on either. */
export type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'execute'>;
