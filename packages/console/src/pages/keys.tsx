import {
  Badge,
  Button,
  Card,
  Group,
  Modal,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, errorMessage, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { FormError, LoadState } from '../components/states';
import { RouteExplainer } from './route-explainer';
import { ScrollTable } from '../components/scroll-table';

type ProviderKey = Awaited<ReturnType<typeof listKeys>>[number];

async function listKeys() {
  return unwrap(await api.GET('/x-keys')).keys;
}

// The values are the API's provider_type names; the labels say which provider each one is.
const KINDS = [
  { value: 'standard', label: 'standard (OpenAI-compatible)' },
  { value: 'cloud_a', label: 'cloud_a (Azure OpenAI)' },
  { value: 'cloud_b', label: 'cloud_b (Google Vertex AI)' },
];

function settingsLabel(kind: string | null): string {
  return kind === 'cloud_a'
    ? 'Settings (JSON: model_mapping, api_versions)'
    : 'Settings (JSON: base_url, project_id, client_email, private_key)';
}

/** Changes a key's name, provider, Level, kind, settings or secret; blank secret and settings stay. */
function EditKey({ entry, onClose }: { entry: ProviderKey; onClose: (changed: boolean) => void }) {
  const kindNow = typeof entry.Config.provider_type === 'string' ? entry.Config.provider_type : 'standard';
  const [name, setName] = useState(entry.Name);
  const [provider, setProvider] = useState(entry.Provider);
  const [level, setLevel] = useState<number | string>(entry.Level);
  const [kind, setKind] = useState<string | null>(kindNow);
  const [secret, setSecret] = useState('');
  const [settings, setSettings] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const body: Record<string, unknown> = {};
    if (name !== entry.Name) body.Name = name;
    if (provider !== entry.Provider) body.Provider = provider;
    if (Number(level) !== entry.Level) body.Level = Number(level);
    if (secret) body.SecretKey = secret;
    if (settings.trim() || kind !== kindNow) {
      try {
        const extra = settings.trim() ? (JSON.parse(settings) as Record<string, unknown>) : {};
        body.Config = kind === 'standard' ? extra : { provider_type: kind, ...extra };
      } catch {
        setError('Settings: not valid JSON');
        return;
      }
    }
    if (Object.keys(body).length === 0) {
      onClose(false);
      return;
    }
    const result = await api.PUT('/x-keys/{selector}', {
      params: { path: { selector: String(entry.ID) } },
      body: body as never,
    });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    onClose(true);
  };
  return (
    <form onSubmit={(event) => void submit(event)}>
      <Stack>
        <TextInput label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} />
        <TextInput
          label="Provider URL"
          value={provider}
          onChange={(event) => setProvider(event.currentTarget.value)}
        />
        <NumberInput label="Level" value={level} onChange={setLevel} min={0} />
        <Select label="Kind" data={KINDS} value={kind} onChange={setKind} allowDeselect={false} />
        <PasswordInput
          label="New secret key (blank keeps the current one)"
          value={secret}
          onChange={(event) => setSecret(event.currentTarget.value)}
        />
        {kind !== 'standard' && (
          <Textarea
            label={`${settingsLabel(kind)}; blank keeps them`}
            value={settings}
            onChange={(event) => setSettings(event.currentTarget.value)}
            autosize
            minRows={3}
          />
        )}
        <FormError message={error} />
        <Group>
          <Button type="submit">Save {entry.Name}</Button>
          <Button variant="default" onClick={() => onClose(false)}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function AddKey({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const [provider, setProvider] = useState('');
  const [secret, setSecret] = useState('');
  const [level, setLevel] = useState<number | string>(1);
  const [kind, setKind] = useState<string | null>('standard');
  const [settings, setSettings] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    let extra: Record<string, unknown> = {};
    try {
      extra = settings.trim() ? (JSON.parse(settings) as Record<string, unknown>) : {};
    } catch {
      setError('Provider settings: not valid JSON');
      return;
    }
    const result = await api.POST('/x-keys', {
      body: {
        Name: name,
        Provider: provider,
        SecretKey: secret,
        Level: Number(level),
        ...(kind && kind !== 'standard' ? { Config: { provider_type: kind, ...extra } } : {}),
      },
    });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    setName('');
    setSecret('');
    onAdded();
  };
  return (
    <Card withBorder component="form" onSubmit={(event) => void submit(event)}>
      <Stack>
        <Text fw={600}>Add a provider key</Text>
        <Group grow align="start">
          <TextInput
            label="Name"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            required
          />
          <TextInput
            label="Provider URL"
            placeholder="https://api.openai.com"
            value={provider}
            onChange={(event) => setProvider(event.currentTarget.value)}
            required
          />
        </Group>
        <Group grow align="start">
          <PasswordInput
            label="Secret key"
            value={secret}
            onChange={(event) => setSecret(event.currentTarget.value)}
            required
          />
          <NumberInput label="Level" value={level} onChange={setLevel} min={0} />
          <Select label="Kind" data={KINDS} value={kind} onChange={setKind} allowDeselect={false} />
        </Group>
        {kind !== 'standard' && (
          <Textarea
            label={settingsLabel(kind)}
            value={settings}
            onChange={(event) => setSettings(event.currentTarget.value)}
            autosize
            minRows={3}
          />
        )}
        <FormError message={error} />
        <Group>
          <Button type="submit">Add key</Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** The owner's pool by Level: add, edit, disable, delete; sleeping keys and wake-up; the route explainer. */
export function KeysPage() {
  const keys = useLoad(listKeys, []);
  const [editing, setEditing] = useState<ProviderKey>();
  const conf = useLoad(async () => unwrap(await api.GET('/x-conf')), []);
  const [error, setError] = useState<string>();
  const reload = () => {
    keys.reload();
    conf.reload();
  };
  const act = async (call: Promise<{ error?: unknown }>) => {
    setError(undefined);
    const result = await call;
    if (result.error) {
      setError(errorMessage(result.error));
    }
    reload();
  };
  return (
    <Stack>
      <Title order={2}>Provider keys</Title>
      <AddKey onAdded={reload} />
      <FormError message={error} />
      <LoadState loaded={keys} empty={(list) => list.length === 0}>
        {(list) => (
          <ScrollTable label="Provider keys" minWidth={640}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Level</Table.Th>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Provider</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {[...list]
                  .sort((a, b) => a.Level - b.Level || a.ID - b.ID)
                  .map((key) => (
                    <Table.Tr key={key.ID}>
                      <Table.Td>L{key.Level}</Table.Td>
                      <Table.Td>{key.Name}</Table.Td>
                      <Table.Td>{key.Provider}</Table.Td>
                      <Table.Td>
                        <Badge variant="dot" color={key.Status ? 'green' : 'gray'}>
                          {key.Status ? 'enabled' : 'disabled'}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs">
                          <Button size="xs" variant="default" onClick={() => setEditing(key)}>
                            Edit {key.Name}
                          </Button>
                          <Button
                            size="xs"
                            variant="default"
                            onClick={() =>
                              void act(
                                api.PUT('/x-keys/{selector}', {
                                  params: { path: { selector: String(key.ID) } },
                                  body: { Status: !key.Status },
                                }),
                              )
                            }
                          >
                            {key.Status ? 'Disable' : 'Enable'} {key.Name}
                          </Button>
                          <Button
                            size="xs"
                            color="red"
                            variant="light"
                            onClick={() =>
                              void act(
                                api.DELETE('/x-keys/{selector}', {
                                  params: { path: { selector: String(key.ID) } },
                                }),
                              )
                            }
                          >
                            Delete {key.Name}
                          </Button>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </LoadState>
      <Modal
        opened={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title={`Edit ${editing?.Name ?? ''}`}
      >
        {editing && (
          <EditKey
            entry={editing}
            onClose={(changed) => {
              setEditing(undefined);
              if (changed) {
                reload();
              }
            }}
          />
        )}
      </Modal>
      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Text fw={600}>Sleeping keys</Text>
          <Button
            size="xs"
            variant="default"
            onClick={() => void act(api.POST('/x-conf', { body: { LoadKeys: true } }))}
          >
            Wake all
          </Button>
        </Group>
        <LoadState loaded={conf} empty={(data) => data.SleepingKeys.length === 0}>
          {(data) => (
            <Stack gap={4}>
              {data.SleepingKeys.map((key) => (
                <Text key={key.ID} size="sm">
                  {key.Name} (L{key.Level}): wakes in {key.SleepRemaining}s
                </Text>
              ))}
            </Stack>
          )}
        </LoadState>
      </Card>
      <RouteExplainer />
    </Stack>
  );
}
