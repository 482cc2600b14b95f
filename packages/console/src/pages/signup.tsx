import { Anchor, Button, Card, Center, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { FormError } from '../components/states';

/** Self-signup (when the gateway has it on): e-mail → code → the new key. */
export function SignupPage({ onDone }: { onDone: () => void }) {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sent, setSent] = useState(false);
  const [key, setKey] = useState<string>();
  const [error, setError] = useState<string>();
  const call = async (path: string, body: unknown) => {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as {
      success?: boolean;
      message?: string;
      key?: string;
      error?: { message: string };
    };
    if (!response.ok || answer.success === false) {
      throw new Error(answer.error?.message ?? answer.message ?? `HTTP ${response.status}`);
    }
    return answer;
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      if (!sent) {
        await call('/x-sign', { email });
        setSent(true);
      } else {
        const answer = await call('/x-sign/verify', { email, code });
        setKey(answer.key ?? answer.message);
      }
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  return (
    <Center mih="100vh" p="md" component="main">
      <Card
        withBorder
        padding="xl"
        w={420}
        maw="100%"
        component="form"
        onSubmit={(event) => void submit(event)}
      >
        <Stack>
          <Title order={1} size="h3">
            Sign up
          </Title>
          {key ? (
            <Text>Your account is ready: {key}</Text>
          ) : (
            <>
              <TextInput
                label="E-mail"
                type="email"
                value={email}
                onChange={(event) => setEmail(event.currentTarget.value)}
                required
                disabled={sent}
              />
              {sent && (
                <TextInput
                  label="Code from the e-mail"
                  value={code}
                  onChange={(event) => setCode(event.currentTarget.value)}
                  required
                />
              )}
              <FormError message={error} />
              <Button type="submit">{sent ? 'Create my account' : 'Send me a code'}</Button>
            </>
          )}
          <Anchor component="button" type="button" size="sm" onClick={onDone}>
            Back to sign-in
          </Anchor>
        </Stack>
      </Card>
    </Center>
  );
}
