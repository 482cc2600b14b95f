import { Alert, Button, Card, CopyButton, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/client';
import { FormError } from '../components/states';
import type { Who } from '../session';

/** Rotates the caller's key (root's with /x-root) after the typed phrase; the new key is shown once. */
export function RotatePage({ who, onRotated }: { who: Who; onRotated: () => void }) {
  const phrase = `${new Date().toISOString().slice(0, 10)}-ROTATE-${who.root ? 'ROOT' : 'SELF'}`;
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string>();
  const [newKey, setNewKey] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const result = who.root
      ? await api.POST('/x-root', { body: { confirm: typed } })
      : await api.POST('/x-self', { body: { confirm: typed } });
    if (result.error || !result.data) {
      setError(errorMessage(result.error));
      return;
    }
    setNewKey(result.data.rotate.key);
  };
  if (newKey) {
    return (
      <Stack>
        <Title order={2}>Key rotated</Title>
        <Alert color="yellow">
          This is the only time the new key is shown. The old key and this session have ended.
        </Alert>
        <Card withBorder>
          <Text ff="monospace" data-testid="rotated-key" style={{ wordBreak: 'break-all' }}>
            {newKey}
          </Text>
        </Card>
        <CopyButton value={newKey}>
          {({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : 'Copy the new key'}</Button>}
        </CopyButton>
        <Button variant="default" onClick={onRotated}>
          Sign in again
        </Button>
      </Stack>
    );
  }
  return (
    <Stack>
      <Title order={2}>Key rotation</Title>
      <Card withBorder component="form" onSubmit={(event) => void submit(event)}>
        <Stack>
          <Text>
            Rotating makes your current key stop working at once, everywhere. Type{' '}
            <Text span ff="monospace">
              {phrase}
            </Text>{' '}
            to confirm.
          </Text>
          <TextInput
            label="Confirmation phrase"
            value={typed}
            onChange={(event) => setTyped(event.currentTarget.value)}
            required
          />
          <FormError message={error} />
          <Button type="submit" color="red" disabled={typed !== phrase}>
            Rotate {who.root ? 'the root key' : 'my key'}
          </Button>
        </Stack>
      </Card>
    </Stack>
  );
}
