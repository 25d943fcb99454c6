package io.playline.topology;

import io.playline.api.config.ApiSettings;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.config.AuthSettings;
import io.playline.roles.cli.ConfigOptions;
import io.playline.standalone.PlaylineCli;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code bin/playline topology} ({@code deploy/local/up}): starts the production topology on this
 * machine ({@link LocalTopology}), prints where everything listens, and runs until Ctrl-C or
 * SIGTERM, which stops it in order. A development tool: the roles get the public development
 * secret unless {@code PLAYLINE_AUTH_SECRET} is set, and it says so.
 */
@Command(name = "topology", mixinStandardHelpOptions = true,
    description = {"Start a Redis Cluster (3 masters + 3 replicas), 3 KRaft Kafka brokers, HBase as its own process,",
        "job, gateway and api processes on loopback, each a real process; Ctrl-C stops them all."})
public final class TopologyCli implements Callable<Integer> {
  private static final String DEV_SECRET = PlaylineCli.DEV_SECRET;
  private static final String DEV_API_SECRET = PlaylineCli.DEV_API_SECRET;

  @Option(names = "--dir", paramLabel = "DIR", description = "Data, logs and endpoints.json (default: deploy/local/run).")
  Path dir = Path.of("deploy", "local", "run");

  @Option(names = "--gateways", description = "Gateway nodes (default: 2).")
  int gateways = 2;

  @Option(names = "--apis", description = "Api processes (default: 1).")
  int apis = 1;

  @Option(names = "--jobs", description = "Job instances (default: 2).")
  int jobs = 2;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A setting every role gets; repeatable.")
  Map<String, String> settings = new LinkedHashMap<>();

  public static void main(String[] args) {
    // The readiness waits poll Kafka and HBase while they start: their clients' retry warnings
    // (with stack traces) would bury the banner. Each server's own log file keeps everything.
    for (String noisy : new String[] {"org.apache.kafka.clients", "org.apache.hadoop.hbase.client",
        "org.apache.zookeeper", "org.apache.hadoop.hbase.zookeeper"}) {
      if (LoggerFactory.getLogger(noisy) instanceof ch.qos.logback.classic.Logger logger) {
        logger.setLevel(ch.qos.logback.classic.Level.ERROR);
      }
    }
    ConfigOptions.checkKeysAgainst(io.playline.standalone.ConfigurationDocs.catalogues());
    // deploy/local/up passes its --dir first; a --dir of the caller's comes later and wins.
    System.exit(new CommandLine(new TopologyCli()).setOverwrittenOptionsAllowed(true).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    // The roles' secrets, read as the roles read them (PLAYLINE_AUTH_SECRET, --set auth.secret=...).
    ConfigSource config = new ConfigOptions().load(settings);
    String secret = AuthSettings.SECRET.read(config).orElse(DEV_SECRET);
    String apiSecret = ApiSettings.SECRET.read(config).orElse(DEV_API_SECRET);
    LocalTopology.Options standard = LocalTopology.Options.standard(dir.toAbsolutePath(),
        System.getProperty("java.class.path"), secret, apiSecret, settings);
    LocalTopology.Options options = new LocalTopology.Options(standard.dir(), standard.classpath(), gateways, apis, jobs,
        standard.redisMasters(), standard.redisReplicas(), standard.kafkaBrokers(), secret, apiSecret, settings,
        standard.roleHeap());
    LocalTopology topology = LocalTopology.start(options);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      topology.close();
      stopped.countDown();
    }, "playline-topology-shutdown"));
    StringBuilder b = new StringBuilder("\n  Playline local topology is up\n");
    b.append("    redis      ").append(topology.redis().seedUri()).append(" (cluster of ")
        .append(topology.redis().nodes().size()).append(" nodes)\n");
    b.append("    kafka      ").append(topology.kafka().bootstrapServers()).append('\n');
    b.append("    hbase      zookeeper 127.0.0.1:").append(topology.hbase().zookeeperPort()).append('\n');
    for (RoleProcess p : topology.gateways()) {
      b.append(String.format("    %-10s %s  %s  admin %s%n", p.name(), p.address("websocket"), p.address("grpc"),
          p.address("admin")));
    }
    for (RoleProcess p : topology.apis()) {
      b.append(String.format("    %-10s %s  admin %s%n", p.name(), p.address("api"), p.address("admin")));
    }
    for (RoleProcess p : topology.jobs()) {
      b.append(String.format("    %-10s admin %s%n", p.name(), p.address("admin")));
    }
    b.append("    everything in ").append(options.dir().resolve("endpoints.json")).append('\n');
    if (secret.equals(DEV_SECRET)) {
      b.append("  WARNING: PLAYLINE_AUTH_SECRET is not set; player tokens use the public development secret.\n");
    }
    if (apiSecret.equals(DEV_API_SECRET)) {
      b.append("  WARNING: PLAYLINE_API_SECRET is not set; the api processes take service tokens signed with the public "
          + "development key (bin/playline token --service NAME mints one).\n");
    }
    b.append("  Stop with Ctrl-C (or SIGTERM).\n");
    System.err.println(b);
    stopped.await();
    return 0;
  }
}
