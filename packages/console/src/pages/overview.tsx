import { Badge, Card, Group, Progress, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { api, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { DailyChart } from '../components/daily-chart';
import { Stat, day, usd } from '../components/stat';
import { LoadState } from '../components/states';

/** How much of a monthly spend limit is used (0: no limit). */
function SpendLimit({ label, used, limit }: { label: string; used: number; limit: number }) {
  if (limit <= 0) {
    return <Text size="sm">{label}: none</Text>;
  }
  const share = Math.min(100, (used / limit) * 100);
  const text = `${label}: ${usd(used)} of ${usd(limit)} used (${share.toFixed(0)}%)`;
  return (
    <Stack gap={4}>
      <Text size="sm">{text}</Text>
      <Progress
        value={share}
        color={share >= 90 ? 'red' : share >= 70 ? 'yellow' : 'indigo'}
        aria-label={text}
      />
    </Stack>
  );
}

/** Balance, credit lots, today's and this month's usage, limits, daily usage and callable models. */
export function OverviewPage() {
  const live = useLoad(async () => unwrap(await api.GET('/dashboard/live')), []);
  const models = useLoad(async () => unwrap(await api.GET('/dashboard/models')), []);
  return (
    <Stack>
      <Title order={2}>Overview</Title>
      <LoadState loaded={live}>
        {(info) => (
          <Stack>
            <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
              <Stat label="Balance" value={usd(info.balance.total)} />
              <Stat label="Requests today" value={info.usage.today.requests} />
              <Stat label="Tokens today" value={info.usage.today.tokens} />
              <Stat label="Cost today" value={usd(info.usage.today.cost)} />
              <Stat label="Requests this month" value={info.usage.month.requests} />
              <Stat label="Tokens this month" value={info.usage.month.tokens} />
              <Stat label="Cost this month" value={usd(info.usage.month.cost)} />
              <Stat label="Auto quota" value={info.limits.auto_quota ? usd(info.limits.auto_quota) : 'off'} />
            </SimpleGrid>
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <DailyChart
                title="Requests per day"
                points={info.monthly_usage.data.map((row) => ({
                  day: day(row.aggregation_timestamp),
                  value: row.n_requests,
                }))}
              />
              <DailyChart
                title="Cost per day (USD)"
                points={info.monthly_usage.data.map((row) => ({
                  day: day(row.aggregation_timestamp),
                  value: Number(
                    Object.values(row.usage_details)
                      .reduce((sum, model) => sum + model.cost, 0)
                      .toFixed(6),
                  ),
                }))}
              />
            </SimpleGrid>
            <Card withBorder>
              <Text fw={600} mb="xs">
                Credit lots
              </Text>
              {info.balance.credits.length === 0 ? (
                <Text c="dimmed">No credit lots.</Text>
              ) : (
                <Table>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Amount</Table.Th>
                      <Table.Th>Expires</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {info.balance.credits.map((credit, index) => (
                      <Table.Tr key={index}>
                        <Table.Td>{usd(credit.amount)}</Table.Td>
                        <Table.Td>{credit.expires_at || 'never'}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
            </Card>
            <Card withBorder>
              <Text fw={600} mb="xs">
                Spend limits this month
              </Text>
              <Stack gap="sm">
                <SpendLimit
                  label="Hard limit (calls stop)"
                  used={info.usage.month.cost}
                  limit={info.limits.hard_limit}
                />
                <SpendLimit
                  label="Soft limit (an alert)"
                  used={info.usage.month.cost}
                  limit={info.limits.soft_limit}
                />
              </Stack>
            </Card>
            <Card withBorder>
              <Text fw={600} mb="xs">
                Rate limits
              </Text>
              <Text size="sm">
                RPM {info.limits.rpm || '∞'} · RPH {info.limits.rph || '∞'} · RPD {info.limits.rpd || '∞'} ·
                TPM {info.limits.tpm || '∞'} · TPD {info.limits.tpd || '∞'}
              </Text>
            </Card>
          </Stack>
        )}
      </LoadState>
      <Card withBorder>
        <Text fw={600} mb="xs">
          Models you may call
        </Text>
        <LoadState loaded={models} empty={(list) => list.models.length === 0}>
          {(list) => (
            <Group gap="xs">
              {list.models.map((model) => (
                <Badge key={model.id} variant="light">
                  {model.id}
                </Badge>
              ))}
            </Group>
          )}
        </LoadState>
      </Card>
    </Stack>
  );
}
