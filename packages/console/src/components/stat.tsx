import { Card, Text } from '@mantine/core';

export function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <Card withBorder padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
    </Card>
  );
}

export const usd = (value: number) => `$${value.toFixed(4)}`;
export const day = (timestamp: number) => new Date(timestamp * 1000).toISOString().slice(0, 10);
