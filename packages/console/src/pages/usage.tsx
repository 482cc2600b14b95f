import { Button, Card, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { DailyChart } from '../components/daily-chart';
import { day, usd } from '../components/stat';
import { LoadState } from '../components/states';
import { ScrollTable } from '../components/scroll-table';

const isoDay = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

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

/** The bill over a span of UTC days: per day, per model, chart and CSV export. */
export function UsagePage() {
  const [start, setStart] = useState(isoDay(-6));
  const [end, setEnd] = useState(isoDay(0));
  const [span, setSpan] = useState({ start, end });
  const bill = useLoad(
    async () =>
      unwrap(await api.GET('/dashboard/bill', { params: { query: { s: span.start, e: span.end } } })),
    [span.start, span.end],
  );

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
        <Button onClick={() => setSpan({ start, end })}>Show</Button>
      </Group>
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
                <Button variant="default" onClick={() => download(`bill-${span.start}-${span.end}.csv`, csv)}>
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
