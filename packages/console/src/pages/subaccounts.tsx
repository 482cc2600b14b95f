import {
  Badge,
  Button,
  Card,
  Group,
  Modal,
  NumberInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, errorMessage, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { usd } from '../components/stat';
import { FormError, LoadState } from '../components/states';
import { SubtreeBill } from './subtree-bill';
import { ScrollTable } from '../components/scroll-table';

type Account = Awaited<ReturnType<typeof listAccounts>>[number];

async function listAccounts(search: string, filter: string) {
  const result = filter
    ? await api.GET('/x-dna/{identifier}', { params: { path: { identifier: filter } } })
    : await api.GET('/x-dna', { params: { query: search ? { name: search } : {} } });
  return unwrap(result).users;
}

function CreateForm({ onCreated }: { onCreated: (key: string) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [credit, setCredit] = useState<number | string>(5);
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const result = await api.POST('/x-users', {
      body: { Name: name, Email: email, CreditGranted: Number(credit) },
    });
    if (result.error || !result.data) {
      setError(errorMessage(result.error));
      return;
    }
    setName('');
    setEmail('');
    onCreated(result.data.User.SecretKey);
  };
  return (
    <Card withBorder component="form" onSubmit={(event) => void submit(event)}>
      <Stack>
        <Text fw={600}>Create a subaccount</Text>
        <Group align="start" grow>
          <TextInput
            label="Name"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            required
          />
          <TextInput
            label="E-mail"
            type="email"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            required
          />
          <NumberInput
            label="Credit granted (USD)"
            value={credit}
            onChange={setCredit}
            min={0}
            decimalScale={4}
          />
        </Group>
        <FormError message={error} />
        <Group>
          <Button type="submit">Create</Button>
        </Group>
      </Stack>
    </Card>
  );
}

function AccountActions({ account, onChanged }: { account: Account; onChanged: () => void }) {
  const [amount, setAmount] = useState<number | string>(1);
  const [error, setError] = useState<string>();
  const [deleting, setDeleting] = useState(false);
  const update = async (body: Record<string, unknown>) => {
    setError(undefined);
    const result = await api.PUT('/x-users/{identifier}', {
      params: { path: { identifier: String(account.ID) } },
      body: body as never,
    });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    onChanged();
  };
  const remove = async () => {
    const result = await api.DELETE('/x-users/{identifier}', {
      params: { path: { identifier: String(account.ID) } },
    });
    setDeleting(false);
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    onChanged();
  };
  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="wrap">
        <NumberInput
          aria-label={`Amount for ${account.Name} (USD; negative claws back)`}
          value={amount}
          onChange={setAmount}
          decimalScale={4}
          w={110}
          size="xs"
        />
        <Button size="xs" onClick={() => void update({ CreditGranted: Number(amount) })}>
          Recharge
        </Button>
        <Button size="xs" variant="default" onClick={() => void update({ Status: !account.Status })}>
          {account.Status ? 'Disable' : 'Enable'}
        </Button>
        <Button size="xs" variant="default" onClick={() => void update({ Suspended: !account.Suspended })}>
          {account.Suspended ? 'Resume' : 'Suspend'}
        </Button>
        <Button size="xs" color="red" variant="light" onClick={() => setDeleting(true)}>
          Delete
        </Button>
      </Group>
      <FormError message={error} />
      <Modal opened={deleting} onClose={() => setDeleting(false)} title={`Delete ${account.Name}?`}>
        <Stack>
          <Text>
            Its balance of {usd(account.Balance)} goes back to you, less the transaction fee. Its key stops
            working.
          </Text>
          <Group>
            <Button color="red" onClick={() => void remove()}>
              Delete {account.Name}
            </Button>
            <Button variant="default" onClick={() => setDeleting(false)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

/** The caller's subtree: search, L/G/R/T/F filters, create, recharge, state changes, delete, bills. */
export function SubaccountsPage() {
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState('');
  const [query, setQuery] = useState({ search: '', filter: '' });
  const [newKey, setNewKey] = useState<string>();
  const accounts = useLoad(() => listAccounts(query.search, query.filter), [query.search, query.filter]);
  return (
    <Stack>
      <Title order={2}>Subaccounts</Title>
      <CreateForm
        onCreated={(key) => {
          setNewKey(key);
          accounts.reload();
        }}
      />
      {newKey && (
        <Card withBorder>
          <Text size="sm">The new subaccount's key, shown once:</Text>
          <Text ff="monospace" data-testid="new-subaccount-key">
            {newKey}
          </Text>
        </Card>
      )}
      <Group
        align="end"
        component="form"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ search, filter });
        }}
      >
        <TextInput
          label="Search by name"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
        />
        <TextInput
          label="Filter (L1, G2, R0, T1, F1.5, a DNA)"
          value={filter}
          onChange={(event) => setFilter(event.currentTarget.value)}
        />
        <Button type="submit">Search</Button>
      </Group>
      <LoadState loaded={accounts} empty={(list) => list.length === 0}>
        {(list) => (
          <ScrollTable label="Subaccounts" minWidth={720}>
            <Table verticalSpacing="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Account</Table.Th>
                  <Table.Th>Balance</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((account) => (
                  <Table.Tr key={account.ID}>
                    <Table.Td>
                      <Text pl={(account.DNA.split('.').filter(Boolean).length - 2) * 12}>
                        {account.Name}{' '}
                        <Text span c="dimmed" size="xs">
                          #{account.ID} {account.DNA}
                        </Text>
                      </Text>
                    </Table.Td>
                    <Table.Td>{usd(account.Balance)}</Table.Td>
                    <Table.Td>
                      <Badge
                        variant="dot"
                        color={account.Status ? (account.Suspended ? 'yellow' : 'green') : 'gray'}
                      >
                        {account.Status ? (account.Suspended ? 'suspended' : 'enabled') : 'disabled'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <AccountActions account={account} onChanged={accounts.reload} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </LoadState>
      <SubtreeBill />
    </Stack>
  );
}
