package io.playline.roles.cli;

import io.playline.core.config.ConfigSource;
import io.playline.roles.Role;
import io.playline.roles.RoleBackends;
import io.playline.roles.RoleBackends.Need;
import io.playline.roles.StartupException;
import io.playline.roles.endpoints.Endpoints;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What every role command ({@code gateway}, {@code api}, {@code job}) does the same way: load the
 * config, resolve the backends strictly ({@link RoleBackends}), start the role, write {@code
 * --endpoints-out} once it serves, and run until SIGTERM, which stops the role in order. The main
 * thread waits.
 */
public abstract class RoleCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(RoleCommand.class);

  @Option(names = "--backends", paramLabel = "FILE",
      description = "An endpoints.json naming Redis, Kafka and HBase (a standalone's <data dir>/endpoints.json or the "
          + "local topology's); addresses set in config win.")
  @Nullable Path backends;

  @Option(names = "--endpoints-out", paramLabel = "FILE",
      description = "Write this process's pid, role and addresses here once it serves (removed on exit).")
  @Nullable Path endpointsOut;

  @Mixin ConfigOptions configOptions = new ConfigOptions();

  /** The role's name, as in {@code bin/playline NAME}. */
  public abstract String name();

  /** The backends the role needs. */
  public abstract List<Need> needs();

  /** Starts the role; blocks while connecting and binding. */
  public abstract Role start(ConfigSource config, RoleBackends backends);

  @Override
  public Integer call() throws Exception {
    ConfigSource config = configOptions.load(Map.of());
    NodeLogs.writeTo(NodeLogs.dir(config));
    RoleBackends resolved = RoleBackends.resolve(config, name(), needs(), backends);
    Role role;
    try {
      role = start(config, resolved);
    } catch (StartupException | io.playline.core.config.ConfigException e) {
      throw e;
    } catch (RuntimeException e) {
      // A backend that does not answer: say which role and why in one line, not a stack trace.
      log.debug("{} failed to start", name(), e);
      throw new StartupException("the " + name() + " role failed to start: " + describe(e), e);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Path out = endpointsOut;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      role.close();
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          log.debug("Could not remove {}: {}", out, e.toString());
        }
      }
      stopped.countDown();
    }, "playline-" + name() + "-shutdown"));
    if (out != null) {
      write(out, role.addresses(), resolved);
    }
    log.info("{} up: {} (redis {}{}, kafka {}, hbase zookeeper {}:{})", name(), role.addresses(), resolved.redisUri(),
        resolved.redisCluster() ? " cluster" : "", resolved.kafkaBootstrapServers(), resolved.hbaseQuorum(),
        resolved.hbaseZookeeperPort());
    stopped.await();
    return 0;
  }

  private static String describe(Throwable e) {
    StringBuilder b = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !b.toString().contains(c.getMessage())) {
        b.append(": ").append(c.getMessage());
      }
    }
    return b.toString();
  }

  private void write(Path out, Map<String, String> own, RoleBackends b) throws IOException {
    new Endpoints(ProcessHandle.current().pid(), name(), null, null, Endpoints.Redis.of(b.redisUri(), b.redisCluster()),
        new Endpoints.Kafka(b.kafkaBootstrapServers(), null),
        new Endpoints.HBase(b.hbaseQuorum(), b.hbaseZookeeperPort(), null), Endpoints.Serves.of(own), null).write(out);
  }
}
