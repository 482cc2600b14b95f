import { Button, Card, Group, Modal, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { DailyChart } from '../components/daily-chart';
import { day, usd } from '../components/stat';
import { LoadState } from '../components/states';
import { ScrollTable } from '../components/scroll-table';

const isoDay = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

const DAY_MS = 86_400_000;

/**
 * The fee the gateway charges for a bill over this span (docs/api.md, `GET /dashboard/bill`):
 * free up to 30 days, 0.01 USD up to 365, 0.05 USD beyond (the span is then cut to 365 days).
 * The answer's `query_fee` says what was charged; this only lets the page ask first.
 */
function spanFee(start: string, end: string): { days: number; fee: number } {
  const days = Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / DAY_MS) + 1;
  if (!Number.isFinite(days) || days < 1) {
    return { days: 0, fee: 0 };
  }
  return { days, fee: days > 365 ? 0.05 : days > 30 ? 0.01 : 0 };
}

/** An idempotency key (getRandomValues works on plain http too, unlike randomUUID). */
function randomKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `bill-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

interface ModelUsage {
  requests?: number;
  cost?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
}

/** Saves text as a file (a blob URL: no inline script, allowed by the page's policy). */
function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}

/** The first and last day a bill's rows cover, for the CSV file's name. */
function spanName(rows: ReadonlyArray<{ aggregation_timestamp: number }>): string {
  const first = rows.at(0);
  const last = rows.at(-1);
  return first && last ? `${day(first.aggregation_timestamp)}-${day(last.aggregation_timestamp)}` : 'empty';
}

type BillQuery = { s: string; e: string } | { days: string } | { d: string };

/** The bill over a span of UTC days: per day, per model, chart and CSV export. */
export function UsagePage() {
  const [start, setStart] = useState(isoDay(-6));
  const [end, setEnd] = useState(isoDay(0));
  // A span is the query's own form: from and to (`s`, `e`), the last N days (`days`), or one day (`d`).
  const [span, setSpan] = useState<{ query: BillQuery; idempotencyKey: string }>({
    query: { s: start, e: end },
    idempotencyKey: '',
  });
  const [asking, setAsking] = useState<{ days: number; fee: number }>();
  const bill = useLoad(
    async () =>
      unwrap(
        await api.GET('/dashboard/bill', {
          params: { query: span.query },
          // A paid query carries a key, so a repeat (a reload, a retry) is not charged again.
          headers: span.idempotencyKey ? { 'idempotency-key': span.idempotencyKey } : {},
        }),
      ),
    [JSON.stringify(span.query), span.idempotencyKey],
  );
  const show = () => {
    const asked = spanFee(start, end);
    if (asked.fee > 0) {
      setAsking(asked);
      return;
    }
    setSpan({ query: { s: start, e: end }, idempotencyKey: '' });
  };
  /** Free spans (30 days at most) asked in the query's short forms. */
  const quick = (query: BillQuery) => setSpan({ query, idempotencyKey: '' });

  return (
    <Stack>
      <Title order={2}>Usage and bills</Title>
      <Group align="end">
        <TextInput
          type="date"
          label="From (UTC)"
          value={start}
          onChange={(event) => setStart(event.currentTarget.value)}
        />
        <TextInput
          type="date"
          label="To (UTC)"
          value={end}
          onChange={(event) => setEnd(event.currentTarget.value)}
        />
        <Button onClick={show}>Show</Button>
        <Button variant="default" onClick={() => quick({ d: isoDay(0) })}>
          Today
        </Button>
        <Button variant="default" onClick={() => quick({ days: '7' })}>
          Last 7 days
        </Button>
        <Button variant="default" onClick={() => quick({ days: '30' })}>
          Last 30 days
        </Button>
      </Group>
      <Modal opened={asking !== undefined} onClose={() => setAsking(undefined)} title="This query has a fee">
        <Stack>
          <Text>
            A bill over {asking?.days} days costs {usd(asking?.fee ?? 0)}, taken from your balance
            {asking && asking.days > 365 ? ' (a span over 365 days is cut to the last 365)' : ''}. Up to 30
            days is free.
          </Text>
          <Group>
            <Button
              onClick={() => {
                setAsking(undefined);
                setSpan({ query: { s: start, e: end }, idempotencyKey: randomKey() });
              }}
            >
              Pay {usd(asking?.fee ?? 0)} and show
            </Button>
            <Button variant="default" onClick={() => setAsking(undefined)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </Modal>
      <LoadState loaded={bill}>
        {(data) => {
          const byModel = new Map<string, { requests: number; cost: number }>();
          for (const row of data.data) {
            for (const [model, usage] of Object.entries(row.usage_details as Record<string, ModelUsage>)) {
              const sum = byModel.get(model) ?? { requests: 0, cost: 0 };
              sum.requests += usage.requests ?? 0;
              sum.cost += usage.cost ?? 0;
              byModel.set(model, sum);
            }
          }
          const csv = [
            'day,requests,prompt_tokens,completion_tokens,cached_tokens',
            ...data.data.map(
              (row) =>
                `${day(row.aggregation_timestamp)},${row.n_requests},${row.n_context_tokens_total},${row.n_generated_tokens_total},${row.n_cached_tokens_total}`,
            ),
          ].join('\n');
          return (
            <Stack>
              <Group>
                <Text>
                  {data.total_usage.requests} requests · {usd(data.total_usage.cost)} total
                  {data.query_fee > 0 ? ` · this query cost a fee of ${usd(data.query_fee)}` : ''}
                </Text>
                <Button variant="default" onClick={() => download(`bill-${spanName(data.data)}.csv`, csv)}>
                  Export CSV
                </Button>
              </Group>
              <DailyChart
                title="Requests per day"
                points={data.data.map((row) => ({
                  day: day(row.aggregation_timestamp),
                  value: row.n_requests,
                }))}
              />
              <Card withBorder>
                <Text fw={600} mb="xs">
                  Per day
                </Text>
                {data.data.length === 0 ? (
                  <Text c="dimmed">No usage in this span.</Text>
                ) : (
                  <ScrollTable label="Usage by day and model" minWidth={480}>
                    <Table>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th>Day</Table.Th>
                          <Table.Th>Requests</Table.Th>
                          <Table.Th>Prompt tokens</Table.Th>
                          <Table.Th>Completion tokens</Table.Th>
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {data.data.map((row) => (
                          <Table.Tr key={row.aggregation_timestamp}>
                            <Table.Td>{day(row.aggregation_timestamp)}</Table.Td>
                            <Table.Td>{row.n_requests}</Table.Td>
                            <Table.Td>{row.n_context_tokens_total}</Table.Td>
                            <Table.Td>{row.n_generated_tokens_total}</Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                  </ScrollTable>
                )}
              </Card>
              <Card withBorder>
                <Text fw={600} mb="xs">
                  Per model
                </Text>
                {byModel.size === 0 ? (
                  <Text c="dimmed">No usage in this span.</Text>
                ) : (
                  <Table>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Model</Table.Th>
                        <Table.Th>Requests</Table.Th>
                        <Table.Th>Cost</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {[...byModel].map(([model, sum]) => (
                        <Table.Tr key={model}>
                          <Table.Td>{model}</Table.Td>
                          <Table.Td>{sum.requests}</Table.Td>
                          <Table.Td>{usd(sum.cost)}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                )}
              </Card>
            </Stack>
          );
        }}
      </LoadState>
    </Stack>
  );
}
