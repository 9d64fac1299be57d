// Operator CLI entry: `npm run ops -- <group> <command> [options]`.
import { UsageError, type CommandContext } from './command.ts';
import { groups } from './commands/index.ts';
import { statusCommand } from './commands/status.ts';

function help(): string {
  const lines = [
    'usage: npm run ops -- <group> <command> [options]',
    '',
    `  ${statusCommand.usage.padEnd(60)} ${statusCommand.summary}`,
    '',
  ];
  for (const [name, group] of Object.entries(groups)) {
    lines.push(`${name}: ${group.summary}`);
    for (const spec of Object.values(group.commands)) lines.push(`  ${spec.usage.padEnd(60)} ${spec.summary}`);
  }
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [groupName, commandName, ...rest] = argv;
  if (!groupName || groupName === 'help' || groupName === '--help') {
    process.stdout.write(help() + '\n');
    return groupName ? 0 : 2;
  }
  // `status` is a command of its own, without a group.
  const command = groupName === 'status' ? statusCommand : groups[groupName]?.commands[commandName ?? ''];
  const args = groupName === 'status' ? argv.slice(1) : rest;
  if (!command) {
    process.stderr.write(`unknown command: ${[groupName, commandName].filter(Boolean).join(' ')}\n\n${help()}\n`);
    return 2;
  }
  const ctx: CommandContext = { argv: args, env: process.env, stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  try {
    await command.run(ctx);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\nusage: npm run ops -- ${command.usage}\n`);
      return 2;
    }
    const { code, message } = error as { code?: string; message?: string };
    process.stderr.write(`error${code ? ` (${code})` : ''}: ${message ?? String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
