import { AppShell, Burger, Button, Group, NavLink, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { ColorSchemeToggle } from './components/color-scheme-toggle';
import { PAGES, pageFromLocation } from './pages';
import { ConfigPage } from './pages/config';
import { KeysPage } from './pages/keys';
import { LogPage } from './pages/log';
import { NewsPage } from './pages/news';
import { OverviewPage } from './pages/overview';
import { RotatePage } from './pages/rotate';
import { SignInPage } from './pages/sign-in';
import { SignupPage } from './pages/signup';
import { SubaccountsPage } from './pages/subaccounts';
import { UsagePage } from './pages/usage';
import { resumeSession, signOut, type Who } from './session';

function PageBody({ page, who, onSignedOut }: { page: string; who: Who; onSignedOut: () => void }) {
  switch (page) {
    case 'usage':
      return <UsagePage />;
    case 'subaccounts':
      return <SubaccountsPage who={who} />;
    case 'keys':
      return <KeysPage />;
    case 'config':
      return <ConfigPage />;
    case 'news':
      return <NewsPage who={who} />;
    case 'log':
      return <LogPage />;
    case 'rotate':
      return <RotatePage who={who} onRotated={onSignedOut} />;
    default:
      return <OverviewPage />;
  }
}

export function App() {
  const [who, setWho] = useState<Who | null | undefined>(undefined);
  const [page, setPage] = useState(pageFromLocation);
  const [opened, { toggle, close }] = useDisclosure();

  useEffect(() => {
    resumeSession().then(
      (resumed) => setWho(resumed ?? null),
      () => setWho(null),
    );
    const onPop = () => setPage(pageFromLocation());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const go = (path: string) => {
    window.history.pushState(null, '', `/console/${path}`);
    setPage(path);
    close();
  };

  if (page === 'signup') {
    return <SignupPage onDone={() => go('overview')} />;
  }
  if (who === undefined) {
    return null;
  }
  if (who === null) {
    return <SignInPage onSignedIn={setWho} onSignup={() => go('signup')} />;
  }
  const visible = PAGES.filter((entry) => entry.visible(who));
  const current = visible.find((entry) => entry.path === page) ?? visible[0];

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Title order={1} size="h4">
              AI Gateway
            </Title>
          </Group>
          <Group gap="xs">
            <Text size="sm" visibleFrom="xs">
              {who.name}
            </Text>
            <ColorSchemeToggle />
            <Button
              variant="default"
              size="xs"
              onClick={() => {
                void signOut().finally(() => setWho(null));
              }}
            >
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Pages" component="nav">
        {visible.map((entry) => (
          <NavLink
            key={entry.path}
            href={`/console/${entry.path}`}
            label={entry.label}
            active={entry.path === current?.path}
            variant="filled"
            aria-current={entry.path === current?.path ? 'page' : undefined}
            onClick={(event) => {
              event.preventDefault();
              go(entry.path);
            }}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <div>
          <PageBody page={current?.path ?? 'overview'} who={who} onSignedOut={() => setWho(null)} />
        </div>
      </AppShell.Main>
    </AppShell>
  );
}
