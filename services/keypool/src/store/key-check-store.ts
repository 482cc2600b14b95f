import type { Database, KeyCheckStore } from '@gw/kit';
import { eq } from 'drizzle-orm';
import { keyCheck } from './schema.js';

export class DrizzleKeyCheckStore implements KeyCheckStore {
  constructor(private readonly db: Database) {}

  async readKeyCheck() {
    const [row] = await this.db.select().from(keyCheck).where(eq(keyCheck.id, 1));
    return row?.cipher;
  }

  async saveKeyCheck(cipher: string) {
    await this.db.insert(keyCheck).values({ id: 1, cipher }).onConflictDoNothing();
    return (await this.readKeyCheck()) ?? cipher;
  }
}
