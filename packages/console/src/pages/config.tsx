import { Button, Card, Group, Stack, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { api, errorMessage, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { LoadState } from '../components/states';
import { MAPPERS, MapperTable, rowsOf } from './mapper-table';

const FIELDS = [
  ['RESOURCES', 'Resources'],
  ['MODEL_LIMITS', 'Model limits (JSON)'],
  ['PRICING', 'Pricing'],
  ['SVC_MAIL', 'Mail sender'],
  ['EMAIL_SMTP', 'SMTP host'],
  ['EMAIL_PORT', 'SMTP port'],
] as const;

type FieldName = (typeof FIELDS)[number][0];

/** A map value in the mapper grammar (`key=value, …`); other values as they are. */
function asText(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${key}=${typeof item === 'object' ? JSON.stringify(item) : String(item)}`)
      .join(', ');
  }
  return '';
}

function ConfigField({ name, label, initial }: { name: FieldName; label: string; initial: string }) {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const save = async () => {
    setError(undefined);
    setSaved(false);
    let body: unknown = value;
    if (name === 'MODEL_LIMITS' && value.trim().startsWith('{')) {
      try {
        body = JSON.parse(value);
      } catch {
        setError('not valid JSON');
        return;
      }
    }
    const result = await api.PUT('/x-config', { body: { [name]: body } as never });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    setSaved(true);
  };
  return (
    <Group align="end" wrap="nowrap">
      <Textarea
        label={label}
        value={value}
        onChange={(event) => setValue(event.currentTarget.value)}
        error={error}
        description={saved ? 'Saved' : undefined}
        autosize
        minRows={1}
        style={{ flex: 1 }}
      />
      <Button variant="default" onClick={() => void save()} aria-label={`Save ${label}`}>
        Save
      </Button>
    </Group>
  );
}

/** The owner's configuration: the mappers as tables, the rest one field at a time so an error lands on its field. */
export function ConfigPage() {
  const config = useLoad(async () => unwrap(await api.GET('/x-config')).configs, []);
  return (
    <Stack>
      <Title order={2}>Configuration</Title>
      <LoadState loaded={config}>
        {(configs) => (
          <>
            {MAPPERS.map((mapper) => (
              <MapperTable key={mapper.name} mapper={mapper} initial={rowsOf(configs[mapper.name])} />
            ))}
            <Card withBorder>
              <Stack>
                {FIELDS.map(([name, label]) => (
                  <ConfigField
                    key={name}
                    name={name}
                    label={label}
                    initial={name === 'MODEL_LIMITS' ? JSON.stringify(configs[name]) : asText(configs[name])}
                  />
                ))}
              </Stack>
            </Card>
          </>
        )}
      </LoadState>
    </Stack>
  );
}
