package io.playline.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoop;
import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.query.HistoryService;
import io.playline.core.store.RedisConnections;
import io.playline.core.write.EventRules;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.node.admin.AdminHttpServer;
import io.playline.node.admin.Readiness;
import io.playline.node.loops.EventLoops;
import io.playline.node.tls.ServerTls;
import io.playline.node.write.AppliedListener;
import io.playline.node.write.FlagCalendar;
import io.playline.node.write.WriteBatcher;
import io.playline.time.Time;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every serving role's process runs on, assembled in one way: event loops first, then the
 * history core (Redis on the first loop with {@code io.redis.shared}), what is told of applied
 * records (progress push, when plugged in), the batched write path, TLS and the admin server. The
 * player edge and the internal API plug into it as siblings: they bind on {@link #loops()}, write
 * through {@link #batcher()} and {@link #attach} themselves, so they stop before the write path.
 *
 * <p>{@link Builder#start()} blocks while connecting and binding (start-up only); a failure closes
 * whatever had started. {@link #close()} stops the attached servers (newest first), the admin
 * server, TLS, the batcher, push, the core (which flushes the write-back), the loops, then the
 * meters it owns. Thread-safe to close from a shutdown hook; idempotent.
 */
public final class Node implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Node.class);

  /**
   * What a node writes with. {@code owner} is closed when the node closes, after everything that
   * writes through it.
   *
   * @param config history-core settings (key prefix, zone, clamping)
   * @param redis the process's Redis client: sessions, push registry and node channels
   * @param writer the Redis write-through, called only on the batcher's loop
   * @param firstToday told when a user is first counted on a day
   * @param history reads and user controls; null on a node that serves no queries
   * @param owner closes all of the above
   * @param historyCore the production core all of the above belong to; null for another core (tests)
   */
  public record Core(CoreConfig config, RedisConnections redis, HistoryWriter writer, FirstTodayListener firstToday,
      @Nullable HistoryService history, AutoCloseable owner, @Nullable HistoryCore historyCore) {

    /** A core that is not {@link HistoryCore} (tests). */
    public Core(CoreConfig config, RedisConnections redis, HistoryWriter writer, FirstTodayListener firstToday,
        @Nullable HistoryService history, AutoCloseable owner) {
      this(config, redis, writer, firstToday, history, owner, null);
    }
  }

  /**
   * Starts the node's {@link Core}, with Redis I/O on {@code redisLoop} (null: a thread of its own),
   * on the node's {@link Time}.
   */
  @FunctionalInterface
  public interface CoreStarter {
    Core start(@Nullable EventLoop redisLoop, MeterRegistry registry, Time time);
  }

  /** What the batcher tells of applied records, and what stops it (after the batcher). */
  public record Applied(AppliedListener listener, AutoCloseable owner) {}

  /**
   * Starts, once the core is up and before the batcher, what the batcher tells of applied records,
   * on the node's {@link Time}.
   */
  @FunctionalInterface
  public interface AppliedStarter {
    Applied start(Core core, MeterRegistry registry, Time time);
  }

  /**
   * The production core: {@link HistoryCore} on {@code redisUri} ({@code redis.cluster} selects
   * Cluster mode) and {@code kafkaBootstrapServers}, with queries over the HBase cluster {@code
   * hbase} names when given. Its HBase client opens on the first read that needs HBase, not here
   * ({@link HistoryCore#attachHBase}).
   */
  public static CoreStarter historyCore(ConfigSource source, String redisUri, String kafkaBootstrapServers,
      String nodeId, @Nullable Configuration hbase) {
    return (loop, registry, time) -> {
      HistoryCore core = HistoryCore.start(source, redisUri, kafkaBootstrapServers, nodeId, registry, loop, time);
      try {
        HistoryService history = hbase == null ? null : core.attachHBase(hbase);
        return new Core(core.config(), core.redis(), core.writer(), core.firstToday(), history, core, core);
      } catch (RuntimeException e) {
        core.close();
        throw e;
      }
    };
  }

  private final StartedParts parts = new StartedParts();
  private final StartedParts attached = new StartedParts();
  private final NodeConfig config;
  private final PrometheusMeterRegistry registry;
  private final Readiness readiness;
  private final Time time;
  private volatile @Nullable EventLoops loops;
  private volatile @Nullable Core core;
  private volatile @Nullable WriteBatcher batcher;
  private volatile @Nullable EventRules eventRules;
  private volatile @Nullable FlagCalendar calendar;
  private volatile @Nullable AdminHttpServer admin;
  private volatile @Nullable ServerTls tls;
  private boolean closed;

  private Node(NodeConfig config, PrometheusMeterRegistry registry, Readiness readiness, Time time) {
    this.config = config;
    this.registry = registry;
    this.readiness = readiness;
    this.time = time;
  }

  public static Builder builder(NodeConfig config) {
    return new Builder(config);
  }

  /** How a node is put together; every part but the core has a default. */
  public static final class Builder {
    private final NodeConfig config;
    private @Nullable PrometheusMeterRegistry registry;
    private @Nullable Readiness readiness;
    private @Nullable CoreStarter core;
    private AppliedStarter applied = (c, r, t) -> new Applied(AppliedListener.NONE, () -> { });
    private Time time = Time.SYSTEM;

    private Builder(NodeConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /** Meters shared with other parts of the process (closed by its owner); default: the node's own. */
    public Builder registry(PrometheusMeterRegistry registry) {
      this.registry = registry;
      return this;
    }

    /** What {@code /readyz} reports, shared with other parts of the process; default: the node's own. */
    public Builder readiness(Readiness readiness) {
      this.readiness = readiness;
      return this;
    }

    /** Required: what the node writes with. */
    public Builder core(CoreStarter core) {
      this.core = core;
      return this;
    }

    /** What the batcher tells of applied records (progress push); default: nobody. */
    public Builder applied(AppliedStarter applied) {
      this.applied = Objects.requireNonNull(applied, "applied");
      return this;
    }

    /** The clock the node and what attaches to it read and schedule by; default {@link Time#SYSTEM}. */
    public Builder time(Time time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /** Connects and binds; on failure whatever started is stopped again and the cause rethrown. */
    public Node start() {
      CoreStarter starter = Objects.requireNonNull(core, "core");
      boolean ownRegistry = registry == null;
      PrometheusMeterRegistry meters = ownRegistry ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : registry;
      Node node = new Node(config, meters, readiness != null ? readiness : new Readiness(), time);
      if (ownRegistry) {
        node.parts.add(meters::close);
      }
      try {
        node.assemble(starter, applied);
        return node;
      } catch (RuntimeException e) {
        node.close();
        throw e;
      }
    }
  }

  private void assemble(CoreStarter starter, AppliedStarter appliedStarter) {
    // The loops outlive the Redis client that may share one of them: created first, closed last.
    EventLoops l = EventLoops.create(config.ioThreads(), config.apiIoThreads());
    parts.add(l);
    loops = l;
    Core c = starter.start(l.redisLoop(config.redisOnIoLoop()), registry, time);
    parts.add(c.owner());
    core = c;
    Applied applied = appliedStarter.start(c, registry, time);
    parts.add(applied.owner());
    FlagCalendar flags = new FlagCalendar(c.config().zone(), time);
    calendar = flags;
    WriteBatcher b = new WriteBatcher(config.batcher(), c.writer(), flags, c.firstToday(), time, registry,
        applied.listener());
    parts.add(b);
    batcher = b;
    eventRules = new EventRules(c.config().clampPast(), c.config().clampFuture());
    ServerTls t = ServerTls.start(config.tls(), registry, time);
    if (t != null) {
      parts.add(t);
      tls = t;
    }
    AdminHttpServer a = admin(l);
    parts.add(a);
    admin = a;
    log.info("Node {} up: queries {}, admin {}", config.nodeId(), c.history() != null ? "on" : "off", a.address());
  }

  private AdminHttpServer admin(EventLoops l) {
    try {
      return AdminHttpServer.start(l, config.admin(), config.adminPort(), registry, readiness, time);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while binding the admin port", e);
    }
  }

  /**
   * Closes {@code part} when this node closes, before the write path and before anything attached
   * earlier. For servers that bind on {@link #loops()} and write through {@link #batcher()}.
   *
   * @return false when this node was already closed: then {@code part} has been closed here
   */
  public boolean attach(AutoCloseable part) {
    synchronized (this) {
      if (!closed) {
        attached.add(part);
        return true;
      }
    }
    StartedParts.closeQuietly(part);
    return false;
  }

  /** Whether {@link #close} was called; nothing can be attached to a closed node. */
  public boolean isClosed() {
    synchronized (this) {
      return closed;
    }
  }

  /** The clock this node and its attached servers read and schedule by. */
  public Time time() {
    return time;
  }

  public NodeConfig config() {
    return config;
  }

  /** The node's TLS (its listeners speak TLS), or null when they are plain text. */
  public @Nullable ServerTls tls() {
    return tls;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public Readiness readiness() {
    return readiness;
  }

  public EventLoops loops() {
    return Objects.requireNonNull(loops, "not started");
  }

  public Core core() {
    return Objects.requireNonNull(core, "not started");
  }

  /**
   * The production core this node writes through, for what only it offers (the write-back
   * aggregator, tools). @throws IllegalStateException when the node was built with another core
   */
  public HistoryCore historyCore() {
    HistoryCore h = core().historyCore();
    if (h == null) {
      throw new IllegalStateException("node " + config.nodeId() + " runs a core other than HistoryCore");
    }
    return h;
  }

  /** The batched write path: players' heartbeats and the internal API's reports go through it. */
  public WriteBatcher batcher() {
    return Objects.requireNonNull(batcher, "not started");
  }

  /** The day each first-today flag belongs to, in the core's zone, as the batcher counts it. */
  public FlagCalendar calendar() {
    return Objects.requireNonNull(calendar, "not started");
  }

  /** Event validation and time clamping, as the batcher's callers apply it. */
  public EventRules eventRules() {
    return Objects.requireNonNull(eventRules, "not started");
  }

  public InetSocketAddress adminAddress() {
    return Objects.requireNonNull(admin, "not started").address();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    attached.close();
    parts.close();
  }
}
