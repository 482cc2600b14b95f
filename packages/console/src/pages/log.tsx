import { Button, Group, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { LoadState } from '../components/states';
import { ScrollTable } from '../components/scroll-table';

/** The caller's operation log with the action and status filters and paging. */
export function LogPage() {
  const [action, setAction] = useState('');
  const [status, setStatus] = useState<string | null>('');
  const [query, setQuery] = useState({ action: '', status: '', page: 1 });
  const logs = useLoad(
    async () =>
      unwrap(
        await api.GET('/dashboard/logs', {
          params: {
            query: {
              page: query.page,
              size: 20,
              ...(query.action ? { action: query.action } : {}),
              ...(query.status ? { status: query.status } : {}),
            } as never,
          },
        }),
      ),
    [query.action, query.status, query.page],
  );
  return (
    <Stack>
      <Title order={2}>Operation log</Title>
      <Group
        align="end"
        component="form"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ action, status: status ?? '', page: 1 });
        }}
      >
        <TextInput label="Action" value={action} onChange={(event) => setAction(event.currentTarget.value)} />
        <Select
          label="Status"
          data={[{ value: '', label: 'any' }, 'success', 'failed']}
          value={status}
          onChange={setStatus}
        />
        <Button type="submit">Filter</Button>
      </Group>
      <LoadState loaded={logs} empty={(data) => data.logs.length === 0}>
        {(data) => (
          <Stack>
            <ScrollTable label="Operation log entries" minWidth={640}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Action</Table.Th>
                    <Table.Th>Target</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Details</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.logs.map((entry) => (
                    <Table.Tr key={entry.id}>
                      <Table.Td>{entry.created_at}</Table.Td>
                      <Table.Td>{entry.action}</Table.Td>
                      <Table.Td>
                        {entry.target_type} {entry.target_id}
                      </Table.Td>
                      <Table.Td>{entry.status}</Table.Td>
                      <Table.Td>{entry.details}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollTable>
            <Group>
              <Button
                variant="default"
                disabled={query.page <= 1}
                onClick={() => setQuery({ ...query, page: query.page - 1 })}
              >
                Previous page
              </Button>
              <Button
                variant="default"
                disabled={!data.has_more}
                onClick={() => setQuery({ ...query, page: query.page + 1 })}
              >
                Next page
              </Button>
            </Group>
          </Stack>
        )}
      </LoadState>
    </Stack>
  );
}
