export type DeliveryStatus = 'sent' | 'written' | 'retrying' | 'dead';

export interface DeliveryEntry {
  jobId: string;
  template: string;
  recipient: string;
  ownerId: bigint | null;
  attempt: number;
  status: DeliveryStatus;
  transport: string;
  error: string;
}

export interface DeliveryLog {
  record(entry: DeliveryEntry): Promise<void>;
  list(filter: { recipient?: string; jobId?: string }): Promise<Array<DeliveryEntry & { at: Date }>>;
}
