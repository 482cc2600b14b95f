import { Card, Text } from '@mantine/core';
import { useReducedMotion } from '@mantine/hooks';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export interface DailyPoint {
  day: string;
  value: number;
}

/** A bar per day; the figure carries a text label for screen readers. */
export function DailyChart({ title, points }: { title: string; points: DailyPoint[] }) {
  const still = useReducedMotion();
  return (
    <Card withBorder padding="md">
      <Text fw={600} mb="sm">
        {title}
      </Text>
      <div
        role="img"
        aria-label={`${title}: ${points.map((point) => `${point.day} ${point.value}`).join(', ') || 'no data'}`}
      >
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={points}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" fontSize={12} />
            <YAxis fontSize={12} />
            <Tooltip />
            <Bar
              dataKey="value"
              name={title}
              fill="var(--mantine-color-indigo-6)"
              isAnimationActive={!still}
            />
          </BarChart>
        </ResponsiveContainer>
      </div>
    </Card>
  );
}
