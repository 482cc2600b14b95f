const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--since`: an ISO 8601 time, or a span back from now such as `30s`, `15m`, `2h`, `7d`. */
export function parseSince(text: string, now: Date): Date | undefined {
  const span = /^(\d+)([smhd])$/.exec(text);
  if (span) {
    return new Date(now.getTime() - Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS]);
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) {
    return undefined;
  }
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time);
}
