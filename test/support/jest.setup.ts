process.env.LOG_LEVEL ??= 'silent';
