import { Button, Card, Group, NumberInput, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { api, errorMessage, unwrap } from '../api/client';
import { useLoad } from '../api/use-load';
import { FormError, LoadState } from '../components/states';
import type { Who } from '../session';

function Publish({ who, onPublished }: { who: Who; onPublished: () => void }) {
  const [target, setTarget] = useState(who.root ? 'system' : '');
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const [days, setDays] = useState<number | string>(7);
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const body = { title, content, days: Number(days) };
    const result =
      target === 'system'
        ? await api.POST('/x-news', { body })
        : await api.POST('/x-news/{target}', { params: { path: { target } }, body });
    if (result.error) {
      setError(errorMessage(result.error));
      return;
    }
    setTitle('');
    setContent('');
    onPublished();
  };
  return (
    <Card withBorder component="form" onSubmit={(event) => void submit(event)}>
      <Stack>
        <Text fw={600}>Publish news</Text>
        <TextInput
          label={
            who.root
              ? 'Audience: "system", an account id or a DNA'
              : 'Audience: an account id or a DNA below you'
          }
          value={target}
          onChange={(event) => setTarget(event.currentTarget.value)}
          required
        />
        <TextInput
          label="Title (up to 100 characters)"
          maxLength={100}
          value={title}
          onChange={(event) => setTitle(event.currentTarget.value)}
          required
        />
        <Textarea
          label="Content (up to 1000 characters)"
          maxLength={1000}
          value={content}
          onChange={(event) => setContent(event.currentTarget.value)}
          required
        />
        <NumberInput label="Days shown" value={days} onChange={setDays} min={1} />
        <FormError message={error} />
        <Group>
          <Button type="submit">Publish</Button>
        </Group>
      </Stack>
    </Card>
  );
}

/** The news that concern the caller; publishing for whoever may. */
export function NewsPage({ who }: { who: Who }) {
  const news = useLoad(async () => unwrap(await api.GET('/dashboard/news')), []);
  return (
    <Stack>
      <Title order={2}>News</Title>
      <LoadState
        loaded={news}
        empty={(data) => data.system_news.length + data.user_news.length + data.dna_news.length === 0}
      >
        {(data) => (
          <Stack>
            {[...data.system_news, ...data.dna_news, ...data.user_news].map((item) => (
              <Card withBorder key={item.id} component="article">
                <Text fw={600}>{item.title}</Text>
                <Text size="sm">{item.content}</Text>
                <Text size="xs" c="dimmed">
                  {item.created_at} · until {item.expires_at}
                </Text>
              </Card>
            ))}
          </Stack>
        )}
      </LoadState>
      {(who.manage || who.root) && <Publish who={who} onPublished={news.reload} />}
    </Stack>
  );
}
