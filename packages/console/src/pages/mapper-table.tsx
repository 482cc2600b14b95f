import {
  ActionIcon,
  Button,
  Card,
  Group,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { useState } from 'react';
import { api, errorMessage } from '../api/client';
import { FormError } from '../components/states';

/** The mappers the owner edits as tables: each row is one `key → value` entry. */
export const MAPPERS = [
  { name: 'MODEL_MAPPER', title: 'Model mapper', key: 'Pattern', value: 'Model', kind: 'text' },
  { name: 'LEVEL_MAPPER', title: 'Level mapper', key: 'Pattern', value: 'Level', kind: 'number' },
  { name: 'MODEL_FAILOVER', title: 'Model failover', key: 'Model', value: 'Fallbacks (a, b)', kind: 'list' },
  { name: 'SWITCH_OVER', title: 'Switch-over', key: 'Level', value: 'To Level', kind: 'number' },
] as const;

type Mapper = (typeof MAPPERS)[number];

interface Row {
  key: string;
  value: string;
}

/** The stored mapping as rows (a failover's list as `a, b`). */
export function rowsOf(mapping: unknown): Row[] {
  if (!mapping || typeof mapping !== 'object') {
    return [];
  }
  return Object.entries(mapping as Record<string, unknown>).map(([key, value]) => ({
    key,
    value: Array.isArray(value) ? value.join(', ') : String(value),
  }));
}

/**
 * One mapper as an editable table. Saving sends the rows as an object (added and changed
 * entries) after a `-key` operation for each removed row, so the stored mapping follows the table.
 */
export function MapperTable({ mapper, initial }: { mapper: Mapper; initial: Row[] }) {
  const [rows, setRows] = useState<Row[]>(initial);
  /** The keys the gateway holds, as far as this page knows: a row removed here is removed there. */
  const [stored, setStored] = useState(() => new Set(initial.map((row) => row.key)));
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const change = (index: number, patch: Partial<Row>) => {
    setSaved(false);
    setRows((now) => now.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  };
  const save = async () => {
    setError(undefined);
    setSaved(false);
    const mapping: Record<string, unknown> = {};
    for (const row of rows) {
      const key = row.key.trim();
      if (!key) {
        continue;
      }
      mapping[key] =
        mapper.kind === 'number'
          ? Number(row.value)
          : mapper.kind === 'list'
            ? row.value
                .split(',')
                .map((item) => item.trim())
                .filter(Boolean)
            : row.value.trim();
    }
    // The object form adds and replaces entries; a removed row goes as a `-key` operation first.
    const removed = [...stored].filter((key) => !(key in mapping));
    if (removed.length > 0) {
      const result = await api.PUT('/x-config', {
        body: { [mapper.name]: removed.map((key) => `-${key}`).join(',') },
      });
      if (result.error) {
        setError(errorMessage(result.error));
        return;
      }
      setStored(new Set([...stored].filter((key) => !removed.includes(key))));
    }
    if (Object.keys(mapping).length > 0) {
      const result = await api.PUT('/x-config', { body: { [mapper.name]: mapping } });
      if (result.error) {
        setError(errorMessage(result.error));
        return;
      }
    }
    setStored(new Set(Object.keys(mapping)));
    setSaved(true);
  };
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Text fw={600} component="h3">
          {mapper.title}
        </Text>
        {rows.length === 0 ? (
          <Text c="dimmed" size="sm">
            No entries.
          </Text>
        ) : (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{mapper.key}</Table.Th>
                <Table.Th>{mapper.value}</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Remove</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => (
                <Table.Tr key={index}>
                  <Table.Td>
                    <TextInput
                      aria-label={`${mapper.title}: ${mapper.key} ${index + 1}`}
                      value={row.key}
                      onChange={(event) => change(index, { key: event.currentTarget.value })}
                      size="xs"
                    />
                  </Table.Td>
                  <Table.Td>
                    <TextInput
                      aria-label={`${mapper.title}: ${mapper.value} ${index + 1}`}
                      value={row.value}
                      onChange={(event) => change(index, { value: event.currentTarget.value })}
                      size="xs"
                    />
                  </Table.Td>
                  <Table.Td>
                    <ActionIcon
                      variant="default"
                      aria-label={`Remove ${row.key || `row ${index + 1}`} from ${mapper.title}`}
                      onClick={() => {
                        setSaved(false);
                        setRows((now) => now.filter((_, at) => at !== index));
                      }}
                    >
                      ×
                    </ActionIcon>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <FormError message={error} />
        <Group>
          <Button
            variant="default"
            size="xs"
            onClick={() => {
              setSaved(false);
              setRows((now) => [...now, { key: '', value: '' }]);
            }}
          >
            Add a row to {mapper.title}
          </Button>
          <Button size="xs" onClick={() => void save()}>
            Save {mapper.title}
          </Button>
          {saved && (
            <Text size="sm" role="status">
              Saved
            </Text>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
