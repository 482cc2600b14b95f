import {
  Badge,
  Button,
  Card,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  Textarea,
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
import type { Who } from '../session';

type Account = Awaited<ReturnType<typeof listAccounts>>[number];

/** The L/G/R/T/F filters and a DNA subtree, as `/x-dna/{identifier}` takes them. */
const FILTERS = [
  { value: 'L', label: 'Level (L)' },
  { value: 'G', label: 'Gear (G)' },
  { value: 'R', label: 'Role (R)' },
  { value: 'T', label: 'Tier (T)' },
  { value: 'F', label: 'Factor (F)' },
  { value: 'DNA', label: 'Subtree (DNA)' },
];

interface Query {
  search: string;
  kind: string | null;
  value: string;
}

/** The caller's descendants in tree order (by DNA), narrowed by name and one filter. */
async function listAccounts({ search, kind, value }: Query) {
  const query = { order: 'dna', size: '1000', ...(search ? { name: search } : {}) };
  const identifier = kind && value.trim() ? (kind === 'DNA' ? value.trim() : `${kind}${value.trim()}`) : '';
  const result = identifier
    ? await api.GET('/x-dna/{identifier}', { params: { path: { identifier }, query } })
    : await api.GET('/x-dna', { params: { query } });
  return unwrap(result).users;
}

const MODEL_LIMITS_LABEL = 'Model limits (JSON: { "gpt-4o*": { "rpm": 60 } })';

/** The optional fields of POST /x-users, by the input each takes; only those filled are sent. */
const CREATE_NUMBERS = [
  ['Days', 'Credit valid for (days)', 0],
  ['Rates', 'Rates', 4],
  ['HardLimit', 'Hard limit (USD)', 4],
  ['SoftLimit', 'Soft limit (USD)', 4],
  ['AutoQuota', 'Auto quota (USD)', 4],
  ['RPM', 'Requests per minute', 0],
  ['RPH', 'Requests per hour', 0],
  ['RPD', 'Requests per day', 0],
  ['TPM', 'Tokens per minute', 0],
  ['TPH', 'Tokens per hour', 0],
  ['TPD', 'Tokens per day', 0],
] as const;

const CREATE_TEXTS = [
  ['Alias', 'Alias'],
  ['BillingEmail', 'Billing e-mail'],
  ['AllowModels', 'Allowed models'],
  ['AllowLevels', 'Allowed Levels'],
  ['AllowIPs', 'Allowed IPs'],
  ['Resources', 'Resources'],
] as const;

const CREATE_FIELDS = [
  'Name',
  'Email',
  'CreditGranted',
  ...CREATE_NUMBERS.map(([name]) => name),
  ...CREATE_TEXTS.map(([name]) => name),
  'ModelLimits',
];

/** POST /x-users with the spec's fields; an API message naming a field is shown on that field. */
function CreateForm({ onCreated }: { onCreated: (key: string) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [credit, setCredit] = useState<number | string>(5);
  const [more, setMore] = useState(false);
  const [optional, setOptional] = useState<Record<string, string | number>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const setField = (field: string, value: string | number) =>
    setOptional((now) => ({ ...now, [field]: value }));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setErrors({});
    const body: Record<string, unknown> = { Name: name, Email: email, CreditGranted: Number(credit) };
    for (const [field] of CREATE_NUMBERS) {
      if (optional[field] !== undefined && optional[field] !== '') body[field] = Number(optional[field]);
    }
    for (const [field] of CREATE_TEXTS) {
      if (String(optional[field] ?? '').trim()) body[field] = optional[field];
    }
    if (String(optional.ModelLimits ?? '').trim()) {
      try {
        body.ModelLimits = JSON.parse(String(optional.ModelLimits)) as unknown;
      } catch {
        setErrors({ ModelLimits: 'not valid JSON' });
        return;
      }
    }
    const result = await api.POST('/x-users', { body: body as never });
    if (result.error || !result.data) {
      const message = errorMessage(result.error);
      const field = fieldOfMessage(message, CREATE_FIELDS);
      if (field) {
        setErrors({ [field]: message });
      } else {
        setError(message);
      }
      return;
    }
    setName('');
    setEmail('');
    setOptional({});
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
            error={errors.Name}
            required
          />
          <TextInput
            label="E-mail"
            type="email"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={errors.Email}
            required
          />
          <NumberInput
            label="Credit granted (USD)"
            value={credit}
            onChange={setCredit}
            min={0}
            decimalScale={4}
            error={errors.CreditGranted}
          />
        </Group>
        <Switch
          label="More settings (validity, limits, allowlists)"
          checked={more}
          onChange={(event) => setMore(event.currentTarget.checked)}
        />
        {more && (
          <>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              {CREATE_NUMBERS.map(([field, label, decimals]) => (
                <NumberInput
                  key={field}
                  label={label}
                  value={optional[field] ?? ''}
                  onChange={(value) => setField(field, value)}
                  min={0}
                  decimalScale={decimals}
                  allowDecimal={decimals > 0}
                  error={errors[field]}
                />
              ))}
            </SimpleGrid>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {CREATE_TEXTS.map(([field, label]) => (
                <TextInput
                  key={field}
                  label={label}
                  value={optional[field] ?? ''}
                  onChange={(event) => setField(field, event.currentTarget.value)}
                  error={errors[field]}
                />
              ))}
            </SimpleGrid>
            <Textarea
              label={MODEL_LIMITS_LABEL}
              value={optional.ModelLimits ?? ''}
              onChange={(event) => setField('ModelLimits', event.currentTarget.value)}
              error={errors.ModelLimits}
              autosize
              minRows={2}
            />
          </>
        )}
        <FormError message={error} />
        <Group>
          <Button type="submit">Create</Button>
        </Group>
      </Stack>
    </Card>
  );
}

const LIMIT_FIELDS = [
  ['HardLimit', 'Hard limit (USD)'],
  ['SoftLimit', 'Soft limit (USD)'],
  ['DailyLimit', 'Daily limit (USD)'],
  ['RPM', 'Requests per minute'],
  ['RPD', 'Requests per day'],
  ['TPM', 'Tokens per minute'],
] as const;

const TEXT_FIELDS = [
  ['AllowModels', 'Allowed models (a,b adds; -a removes; * resets)'],
  ['AllowLevels', 'Allowed Levels'],
  ['AllowIPs', 'Allowed IPs'],
  ['ModelMapper', 'Model mapper (pattern=model, …)'],
] as const;

type FieldName =
  | (typeof LIMIT_FIELDS)[number][0]
  | (typeof TEXT_FIELDS)[number][0]
  | 'ModelLimits'
  | 'LevelMapper'
  | 'Level';

/** The field an API message starts with (`ModelMapper holds …`, `rpm: must …`), to show it there. */
function fieldOfMessage(message: string, names: readonly string[]): string | undefined {
  const head = /^([A-Za-z_]+)[:\s]/.exec(message)?.[1]?.toLowerCase();
  return names.find((name) => name.toLowerCase() === head);
}

/** Limits, allowlists, ModelLimits and ModelMapper (and, for an owner, Level and LevelMapper). */
function EditAccount({
  account,
  owner,
  onClose,
}: {
  account: Account;
  owner: boolean;
  onClose: (changed: boolean) => void;
}) {
  const initial: Record<string, string | number> = {
    ...Object.fromEntries(LIMIT_FIELDS.map(([name]) => [name, account[name]])),
    ...Object.fromEntries(TEXT_FIELDS.map(([name]) => [name, account[name]])),
    ModelLimits: Object.keys(account.ModelLimits).length ? JSON.stringify(account.ModelLimits, null, 2) : '',
    LevelMapper: account.LevelMapper,
    Level: account.Level,
  };
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [error, setError] = useState<string>();
  const set = (name: FieldName, value: string | number) => setValues((now) => ({ ...now, [name]: value }));
  const names = [
    ...LIMIT_FIELDS.map(([name]) => name),
    ...TEXT_FIELDS.map(([name]) => name),
    'ModelLimits',
    ...(owner ? ['LevelMapper', 'Level'] : []),
  ] as FieldName[];
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    setError(undefined);
    const body: Record<string, unknown> = {};
    for (const name of names) {
      if (values[name] === initial[name]) continue;
      if (name === 'ModelLimits') {
        try {
          body.ModelLimits = String(values[name]).trim() ? JSON.parse(String(values[name])) : {};
        } catch {
          setErrors({ ModelLimits: 'not valid JSON' });
          return;
        }
      } else {
        body[name] = typeof initial[name] === 'number' ? Number(values[name]) : values[name];
      }
    }
    if (Object.keys(body).length === 0) {
      onClose(false);
      return;
    }
    const result = await api.PUT('/x-users/{identifier}', {
      params: { path: { identifier: String(account.ID) } },
      body: body as never,
    });
    if (result.error) {
      const message = errorMessage(result.error);
      const field = fieldOfMessage(message, names) as FieldName | undefined;
      if (field) {
        setErrors({ [field]: message });
      } else {
        setError(message);
      }
      return;
    }
    onClose(true);
  };
  return (
    <form onSubmit={(event) => void submit(event)}>
      <Stack>
        <Group grow align="start">
          {LIMIT_FIELDS.slice(0, 3).map(([name, label]) => (
            <NumberInput
              key={name}
              label={label}
              value={values[name]}
              onChange={(value) => set(name, value)}
              min={0}
              decimalScale={4}
              error={errors[name]}
            />
          ))}
        </Group>
        <Group grow align="start">
          {LIMIT_FIELDS.slice(3).map(([name, label]) => (
            <NumberInput
              key={name}
              label={label}
              value={values[name]}
              onChange={(value) => set(name, value)}
              min={0}
              allowDecimal={false}
              error={errors[name]}
            />
          ))}
        </Group>
        {TEXT_FIELDS.map(([name, label]) => (
          <TextInput
            key={name}
            label={label}
            value={values[name]}
            onChange={(event) => set(name, event.currentTarget.value)}
            error={errors[name]}
          />
        ))}
        <Textarea
          label={MODEL_LIMITS_LABEL}
          value={values.ModelLimits}
          onChange={(event) => set('ModelLimits', event.currentTarget.value)}
          error={errors.ModelLimits}
          autosize
          minRows={2}
        />
        {owner && (
          <Group grow align="start">
            <NumberInput
              label="Level"
              value={values.Level}
              onChange={(value) => set('Level', value)}
              min={0}
              max={9}
              allowDecimal={false}
              error={errors.Level}
            />
            <TextInput
              label="Level mapper (pattern=Level, …)"
              value={values.LevelMapper}
              onChange={(event) => set('LevelMapper', event.currentTarget.value)}
              error={errors.LevelMapper}
            />
          </Group>
        )}
        <FormError message={error} />
        <Group>
          <Button type="submit">Save {account.Name}</Button>
          <Button variant="default" onClick={() => onClose(false)}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** What a delete or a claw-back pays the parent: the amount less a fee of min(0.2 USD, amount). */
function refundOf(amount: number): number {
  return Math.max(0, amount - Math.min(0.2, amount));
}

function AccountActions({
  account,
  owner,
  onChanged,
}: {
  account: Account;
  owner: boolean;
  onChanged: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [amount, setAmount] = useState<number | string>(1);
  const [days, setDays] = useState<number | string>('');
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
        <NumberInput
          aria-label={`Days the credit for ${account.Name} lasts (blank: the default)`}
          placeholder="days"
          value={days}
          onChange={setDays}
          min={1}
          max={3650}
          allowDecimal={false}
          w={80}
          size="xs"
        />
        <Button
          size="xs"
          onClick={() =>
            void update({
              CreditGranted: Number(amount),
              ...(days !== '' && Number(amount) > 0 ? { Days: Number(days) } : {}),
            })
          }
        >
          Recharge
        </Button>
        <Button size="xs" variant="default" onClick={() => void update({ Status: !account.Status })}>
          {account.Status ? 'Disable' : 'Enable'}
        </Button>
        <Button size="xs" variant="default" onClick={() => void update({ Suspended: !account.Suspended })}>
          {account.Suspended ? 'Resume' : 'Suspend'}
        </Button>
        <Button size="xs" variant="default" onClick={() => setEditing(true)}>
          Edit
        </Button>
        <Button size="xs" color="red" variant="light" onClick={() => setDeleting(true)}>
          Delete
        </Button>
      </Group>
      <FormError message={error} />
      <Modal opened={editing} onClose={() => setEditing(false)} title={`Edit ${account.Name}`} size="lg">
        {editing && (
          <EditAccount
            account={account}
            owner={owner}
            onClose={(changed) => {
              setEditing(false);
              if (changed) {
                onChanged();
              }
            }}
          />
        )}
      </Modal>
      <Modal opened={deleting} onClose={() => setDeleting(false)} title={`Delete ${account.Name}?`}>
        <Stack>
          {account.Balance > 0 ? (
            <Text>
              You get back {usd(refundOf(account.Balance))}: its balance of {usd(account.Balance)} less a fee
              of {usd(account.Balance - refundOf(account.Balance))}. Its key stops working at once.
            </Text>
          ) : (
            <Text>
              Its balance is {usd(account.Balance)}; any unpaid usage passes to you. Its key stops working at
              once.
            </Text>
          )}
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

/** The caller's subtree: search, L/G/R/T/F filters, create, recharge, edit, state changes, delete, bills. */
export function SubaccountsPage({ who }: { who: Who }) {
  const [search, setSearch] = useState('');
  const [kind, setKind] = useState<string | null>(null);
  const [value, setValue] = useState('');
  const [query, setQuery] = useState<Query>({ search: '', kind: null, value: '' });
  const [newKey, setNewKey] = useState<string>();
  const accounts = useLoad(() => listAccounts(query), [query.search, query.kind, query.value]);
  const depth = (dna: string) => dna.split('.').filter(Boolean).length;
  const myDepth = depth(who.dna);
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
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ search, kind, value });
        }}
      >
        <TextInput
          label="Search by name"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
        />
        <Select
          label="Filter by"
          placeholder="no filter"
          data={FILTERS}
          value={kind}
          onChange={setKind}
          clearable
        />
        <TextInput
          label={kind === 'DNA' ? 'DNA (.1.5.)' : 'Value'}
          value={value}
          onChange={(event) => setValue(event.currentTarget.value)}
          disabled={!kind}
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
                      <Text pl={Math.max(0, depth(account.DNA) - myDepth - 1) * 16}>
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
                      <AccountActions account={account} owner={who.admin} onChanged={accounts.reload} />
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
