import { Button, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';

/** Light or dark, remembered by the component library (local storage holds only this choice). */
export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  return (
    <Button variant="default" size="xs" onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}>
      {scheme === 'dark' ? 'Light' : 'Dark'} mode
    </Button>
  );
}
