import { Card, Stack, Text } from '@mantine/core';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { usd } from '../components/stat';
import { LoadState } from '../components/states';

/** /x-bill over the last seven days: each descendant's share of the cost. */
export function SubtreeBill() {
  const bill = useLoad(
    async () => unwrap(await api.GET('/x-bill', { params: { query: { days: '7' } } })),
    [],
  );
  return (
    <Card withBorder>
      <Text fw={600} mb="xs">
        Descendants' usage, last 7 days
      </Text>
      <LoadState loaded={bill} empty={(data) => data.usage_users.length === 0}>
        {(data) => {
          const points = data.usage_users.map((user) => ({
            name: user.name,
            share: user.usage_analysis.cost_percentage,
          }));
          return (
            <Stack>
              <div
                role="img"
                aria-label={`Cost share: ${points.map((point) => `${point.name} ${point.share}%`).join(', ')}`}
              >
                <ResponsiveContainer width="100%" height={200}>
                  <BarChart data={points}>
                    <CartesianGrid strokeDasharray="3 3" />
                    <XAxis dataKey="name" fontSize={12} />
                    <YAxis unit="%" fontSize={12} />
                    <Tooltip />
                    <Bar dataKey="share" name="Cost share" fill="var(--mantine-color-teal-6)" />
                  </BarChart>
                </ResponsiveContainer>
              </div>
              <Text size="sm">
                {data.usage_users
                  .map((user) => `${user.name}: ${user.total_requests} requests, ${usd(user.total_cost)}`)
                  .join(' · ')}
              </Text>
            </Stack>
          );
        }}
      </LoadState>
    </Card>
  );
}
